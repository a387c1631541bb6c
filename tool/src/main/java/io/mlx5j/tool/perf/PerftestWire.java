// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Gid;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * perftest's out-of-band TCP protocol (perftest 4.5-0.17, whose programs call themselves version 6.06:
 * src/perftest_communication.c) over a {@link PerftestLink}: the TCP socket of the "ethernet" path, or with
 * {@code -R} the SENDs of an RC QP connected through rdma_cm (ctx_xchg_data_rdma; the QP destinations then travel as
 * the binary struct, the rest byte for byte as over TCP). Every exchange is symmetric and fixed-size: the client
 * writes then reads, the server reads then writes (ctx_xchg_data_*, ctx_hand_shake), so one method serves both
 * roles.
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
    /** sizeof(struct pingpong_dest) on x86-64: what rdma_write_keys sends over rdma_cm. */
    static final int DEST_STRUCT_BYTES = 56;
    private static final String MLX5J_MARK = "mlx5j";
    private static final double MIN_VERSION = 5.70;

    /**
     * One QP's destination (struct pingpong_dest). {@code gidIndex} travels only in the binary form (the text has no
     * field for it); -1 means none.
     */
    record Dest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn, int gidIndex)
    {
        Dest(final int lid, final int outReads, final int qpn, final int psn, final int rkey, final long vaddr,
            final Gid gid, final int srqn)
        {
            this(lid, outReads, qpn, psn, rkey, vaddr, gid, srqn, -1);
        }
    }

    /** One side's bandwidth report (struct bw_report_data without the per-port fields). */
    record BwReport(long size, long iterations, double bwPeak, double bwAvg, double msgRate)
    {
    }

    private final PerftestLink link;
    private final boolean client;
    private String remoteVersion = "";
    private boolean remoteIsMlx5j;

    /** {@code client}: this side writes first in every exchange (perftest's side with a server name). */
    PerftestWire(final PerftestLink link, final boolean client)
    {
        this.link = link;
        this.client = client;
    }

    /** The client side over TCP: connects to a perftest (or mlx5j) server. */
    static PerftestWire connect(final String host, final int port, final Duration timeout) throws IOException
    {
        return new PerftestWire(PerftestTcpLink.connect(host, port, timeout), true);
    }

    /** The server side over TCP: waits for one client on {@code listener}. */
    static PerftestWire accept(final ServerSocket listener, final Duration timeout) throws IOException
    {
        return new PerftestWire(PerftestTcpLink.accept(listener, timeout), false);
    }

    /** Time limit of each later read (0: wait as long as the peer runs). */
    void readTimeout(final Duration timeout) throws IOException
    {
        link.readTimeout(timeout);
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
        return link.peer();
    }

    /** The BlueFlame register of the link's QP (-R), or 0 (TCP). */
    long bfRegister()
    {
        return link instanceof PerftestCmLink cm ? cm.bfRegister() : 0;
    }

    /** One symmetric exchange of {@code mine.length} bytes. */
    private byte[] exchange(final byte[] mine, final String what) throws IOException
    {
        if (client)
        {
            link.write(mine, what);
            return link.read(mine.length, what);
        }
        final byte[] theirs = link.read(mine.length, what);
        link.write(mine, what);
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
        if (link.binaryDestinations())
        {
            return parseBinaryDest(exchange(binaryDest(my, gidFormat), "QP destination"));
        }
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

    /**
     * {@link PerftestTcpLink#awaitPeerEnd}. Over rdma_cm the data connection's DISCONNECTED marks the peer's end
     * instead (a perftest client disconnects it and waits for ours before it exits).
     */
    boolean awaitPeerEnd(final Duration limit) throws IOException
    {
        if (!(link instanceof PerftestTcpLink tcp))
        {
            throw new IllegalStateException("over rdma_cm the data connection tells the peer's end");
        }
        return tcp.awaitPeerEnd(limit);
    }

    /** ctx_close_connection: a last handshake, then (TCP only) "done" and its NUL. */
    void close(final Dest my, final boolean gidFormat) throws IOException
    {
        handshake(my, gidFormat);
        link.finish();
    }

    @Override
    public void close() throws IOException
    {
        link.close();
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

    /**
     * rdma_write_keys: {@code struct pingpong_dest} (perftest_resources.h: int lid, out_reads, qpn, psn; unsigned
     * rkey; 4 bytes of padding; unsigned long long vaddr; union ibv_gid gid; unsigned srqn; int gid_index: 56 bytes
     * on x86-64), every integer big-endian (perftest is built with HAVE_ENDIAN: htobe32/htobe64), the GID as is.
     */
    static byte[] binaryDest(final Dest d, final boolean gidFormat)
    {
        final ByteBuffer b = ByteBuffer.allocate(DEST_STRUCT_BYTES);
        b.putInt(d.lid()).putInt(d.outReads()).putInt(d.qpn()).putInt(d.psn()).putInt(d.rkey()).putInt(0)
            .putLong(d.vaddr()).put(d.gid().toBytes()).putInt(d.srqn()).putInt(gidFormat ? d.gidIndex() : -1);
        return b.array();
    }

    /** rdma_read_keys: the fields it converts (it leaves srqn alone, so a perftest peer's is whatever it sent). */
    static Dest parseBinaryDest(final byte[] msg)
    {
        final ByteBuffer b = ByteBuffer.wrap(msg);
        final int lid = b.getInt();
        final int outReads = b.getInt();
        final int qpn = b.getInt();
        final int psn = b.getInt();
        final int rkey = b.getInt();
        b.getInt();
        final long vaddr = b.getLong();
        final byte[] gid = new byte[16];
        b.get(gid);
        final int srqn = b.getInt();
        final int gidIndex = b.getInt();
        return new Dest(lid, outReads, qpn, psn, rkey, vaddr, Gid.fromBytes(gid), srqn, gidIndex);
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
                Gid.fromBytes(gid), (int) Long.parseLong(f[gidFormat ? 22 : 6], 16), -1);
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
}
