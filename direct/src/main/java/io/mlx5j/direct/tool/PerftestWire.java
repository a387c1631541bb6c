package io.mlx5j.direct.tool;

import io.mlx5j.direct.Gid;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * perftest's out-of-band TCP protocol (perftest 4.5-0.17, whose programs call themselves version 6.06:
 * src/perftest_communication.c, the "ethernet" path without rdma_cm). Every exchange is symmetric and fixed-size:
 * the client writes then reads, the server reads then writes (ctx_xchg_data_ethernet, ctx_hand_shake), so one
 * method serves both roles.
 * <ul>
 * <li>{@link #exchangeVersions()}: 16 bytes, the NUL-terminated version string (exchange_versions); perftest
 *     refuses a peer below 5.70 (check_version_compatibility), and so does this class.</li>
 * <li>{@link #exchangeSysData}: cycle buffer then cache line size, 4 bytes each, big-endian; both keep the larger
 *     (check_sys_data).</li>
 * <li>{@link #exchangeMtu}: the enum ibv_mtu as ASCII in 2 bytes ("5" and its NUL); both use the smaller
 *     (check_mtu for peers from 5.31 on).</li>
 * <li>{@link #handshake}: one QP's destination, the text of KEY_PRINT_FMT (59 bytes with the NUL) or, when the
 *     sides use a GID index, of KEY_PRINT_FMT_GID (108 bytes): LID, out_reads, QPN, PSN, rkey, vaddr, [GID,] SRQN
 *     in hex (ethernet_write_keys / ethernet_read_keys). Which format is not on the wire: both sides must agree
 *     (perftest: both or neither pass -x on InfiniBand; RoCE always uses a GID).</li>
 * <li>{@link #exchangeBwReport}: size and iterations (8 bytes each), BW peak, BW average and message rate (IEEE
 *     doubles), all big-endian (xchg_bw_reports for peers from 5.33 on).</li>
 * <li>{@link #close}: a last handshake, then "done" with its NUL, then the socket closes (ctx_close_connection;
 *     perftest never reads the peer's "done").</li>
 * </ul>
 * mlx5j writes its name after the version string's NUL, where perftest's {@code strncpy} leaves zeros and
 * {@code atof} does not look, so two mlx5j peers know each other (and check the data that moved) while a perftest
 * peer sees version 6.06.
 */
final class PerftestWire implements AutoCloseable
{
    /** The version perftest 4.5-0.17 reports (configure.ac AC_INIT), what mlx5j speaks. */
    static final String VERSION = "6.06";
    static final int VERSION_BYTES = 16;         // MAX_VERSION
    static final int KEY_MSG_SIZE = 59;
    static final int KEY_MSG_SIZE_GID = 108;
    private static final String MLX5J_MARK = "mlx5j";
    private static final double MIN_VERSION = 5.70;

    /** One QP's destination (struct pingpong_dest, the fields the text carries). */
    record Dest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn)
    {
    }

    /** One side's bandwidth report (struct bw_report_data without the per-port fields). */
    record BwReport(long size, long iterations, double bwPeak, double bwAvg, double msgRate)
    {
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final boolean client;
    private String remoteVersion = "";
    private boolean remoteIsMlx5j;

    private PerftestWire(final Socket socket, final boolean client) throws IOException
    {
        this.socket = socket;
        this.client = client;
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** The client side: connects to a perftest (or mlx5j) server. */
    static PerftestWire connect(final String host, final int port, final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final Socket s = new Socket();
            try
            {
                s.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                return new PerftestWire(s, true);
            }
            catch (final IOException e)
            {
                s.close();
                // perftest's client gives up at once; retrying briefly lets scripts start both sides together
                if (System.nanoTime() > deadline)
                {
                    throw new IOException("Couldn't connect to " + host + ":" + port + " (" + e.getMessage() + ")", e);
                }
                sleep(50);
            }
        }
    }

    /** The server side: waits for one client on {@code listener}. */
    static PerftestWire accept(final ServerSocket listener, final Duration timeout) throws IOException
    {
        listener.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        final Socket s;
        try
        {
            s = listener.accept();
        }
        catch (final SocketTimeoutException e)
        {
            throw new IOException("no client on TCP port " + listener.getLocalPort() + " within " + timeout, e);
        }
        s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        return new PerftestWire(s, false);
    }

    /** Time limit of each later read (0: wait as long as the peer runs). */
    void readTimeout(final Duration timeout) throws IOException
    {
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }

    boolean remoteIsMlx5j()
    {
        return remoteIsMlx5j;
    }

    String remoteVersion()
    {
        return remoteVersion;
    }

    String peer()
    {
        return String.valueOf(socket.getRemoteSocketAddress());
    }

    /** One symmetric exchange of {@code mine.length} bytes. */
    private byte[] exchange(final byte[] mine, final String what) throws IOException
    {
        final byte[] theirs = new byte[mine.length];
        try
        {
            if (client)
            {
                out.write(mine);
                out.flush();
                in.readFully(theirs);
            }
            else
            {
                in.readFully(theirs);
                out.write(mine);
                out.flush();
            }
        }
        catch (final EOFException e)
        {
            throw new IOException("the peer closed the connection during " + what, e);
        }
        catch (final SocketTimeoutException e)
        {
            throw new IOException("the peer sent no " + what + " in time", e);
        }
        return theirs;
    }

    void exchangeVersions() throws IOException
    {
        final byte[] mine = new byte[VERSION_BYTES];
        final byte[] v = VERSION.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(v, 0, mine, 0, v.length);
        final byte[] mark = MLX5J_MARK.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(mark, 0, mine, v.length + 1, mark.length);
        final byte[] theirs = exchange(mine, "version");
        remoteVersion = cString(theirs, 0);
        final int nul = remoteVersion.length();
        remoteIsMlx5j = nul + 1 < theirs.length && cString(theirs, nul + 1).equals(MLX5J_MARK);
        final double remote = leadingNumber(remoteVersion);
        if (!(remote >= MIN_VERSION))
        {
            throw new IOException("the peer's perftest version is '" + remoteVersion + "': the protocol of "
                + VERSION + " needs " + MIN_VERSION + " or later (perftest's check_version_compatibility)");
        }
    }

    /** @return {cycle buffer, cache line size}, each the larger of the two sides' */
    int[] exchangeSysData(final int cycleBuffer, final int cacheLine) throws IOException
    {
        final int rb = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cycleBuffer).array(), "page size"))
            .getInt();
        final int rc = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cacheLine).array(), "cache line size"))
            .getInt();
        return new int[] {Math.max(rb, cycleBuffer), Math.max(rc, cacheLine)};
    }

    /** @return the enum ibv_mtu both sides use: the smaller of the two, as check_mtu does */
    int exchangeMtu(final int mtu) throws IOException
    {
        final byte[] mine = new byte[2];
        final byte[] digit = Integer.toString(mtu).getBytes(StandardCharsets.US_ASCII);
        if (digit.length != 1)
        {
            throw new IllegalArgumentException("enum ibv_mtu " + mtu);
        }
        mine[0] = digit[0];
        final String theirs = cString(exchange(mine, "MTU"), 0);
        final int remote;
        try
        {
            remote = Integer.parseInt(theirs);
        }
        catch (final NumberFormatException e)
        {
            throw new IOException("the peer sent MTU '" + theirs + "'", e);
        }
        return remote >= 1 && remote <= 5 && remote < mtu ? remote : mtu;
    }

    Dest handshake(final Dest my, final boolean gidFormat) throws IOException
    {
        return parseDest(exchange(formatDest(my, gidFormat), "QP destination"), gidFormat);
    }

    BwReport exchangeBwReport(final BwReport my) throws IOException
    {
        final long size = ByteBuffer.wrap(exchange(be64(my.size()), "report size")).getLong();
        final long iterations = ByteBuffer.wrap(exchange(be64(my.iterations()), "report iterations")).getLong();
        final double peak = ByteBuffer.wrap(exchange(be64(Double.doubleToRawLongBits(my.bwPeak())), "BW peak"))
            .getDouble();
        final double avg = ByteBuffer.wrap(exchange(be64(Double.doubleToRawLongBits(my.bwAvg())), "BW average"))
            .getDouble();
        final double rate = ByteBuffer.wrap(exchange(be64(Double.doubleToRawLongBits(my.msgRate())), "message rate"))
            .getDouble();
        return new BwReport(size, iterations, peak, avg, rate);
    }

    /** ctx_close_connection: a last handshake, then "done" and its NUL. */
    void close(final Dest my, final boolean gidFormat) throws IOException
    {
        handshake(my, gidFormat);
        out.write("done\0".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }

    // ------------------------------------------------------------------------------------------ formats

    /** KEY_PRINT_FMT or KEY_PRINT_FMT_GID, NUL-padded to the fixed message size. */
    static byte[] formatDest(final Dest d, final boolean gidFormat)
    {
        final StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:",
            d.lid(), d.outReads(), d.qpn(), d.psn(), d.rkey(), d.vaddr()));
        if (gidFormat)
        {
            final byte[] raw = d.gid().toBytes();
            for (final byte b : raw)
            {
                sb.append(String.format(Locale.ROOT, "%02x:", b & 0xff));
            }
            sb.append(String.format(Locale.ROOT, "%08x:", d.srqn()));
        }
        else
        {
            sb.append(String.format(Locale.ROOT, "%08x", d.srqn()));
        }
        final byte[] text = sb.toString().getBytes(StandardCharsets.US_ASCII);
        final byte[] msg = new byte[gidFormat ? KEY_MSG_SIZE_GID : KEY_MSG_SIZE];
        if (text.length >= msg.length)
        {
            throw new IllegalArgumentException("destination does not fit perftest's message: " + sb);
        }
        System.arraycopy(text, 0, msg, 0, text.length);
        return msg;
    }

    static Dest parseDest(final byte[] msg, final boolean gidFormat) throws IOException
    {
        final String text = cString(msg, 0);
        final String[] f = text.split(":", -1);
        final int fields = gidFormat ? 6 + 16 + 1 : 7;
        if (f.length < fields)
        {
            throw new IOException("cannot parse the peer's QP destination '" + text + "' (" + (gidFormat
                ? "GID format: does the peer use a GID index (-x) too?" : "no-GID format: does the peer use -x?")
                + ")");
        }
        try
        {
            final byte[] gid = new byte[16];
            if (gidFormat)
            {
                for (int i = 0; i < 16; i++)
                {
                    gid[i] = (byte) Integer.parseInt(f[6 + i], 16);
                }
            }
            return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                Integer.parseInt(f[3], 16), (int) Long.parseLong(f[4], 16), Long.parseUnsignedLong(f[5], 16),
                Gid.fromBytes(gid), (int) Long.parseLong(f[gidFormat ? 22 : 6], 16));
        }
        catch (final NumberFormatException e)
        {
            throw new IOException("cannot parse the peer's QP destination '" + text + "'", e);
        }
    }

    private static byte[] be64(final long v)
    {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static String cString(final byte[] b, final int from)
    {
        int end = from;
        while (end < b.length && b[end] != 0)
        {
            end++;
        }
        return new String(b, from, end - from, StandardCharsets.US_ASCII);
    }

    private static double leadingNumber(final String s)
    {
        int end = 0;
        while (end < s.length() && (Character.isDigit(s.charAt(end)) || s.charAt(end) == '.'))
        {
            end++;
        }
        try
        {
            return end == 0 ? Double.NaN : Double.parseDouble(s.substring(0, end));
        }
        catch (final NumberFormatException e)
        {
            return Double.NaN;
        }
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
