// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** perftest's TCP socket (ethernet_client_connect / ethernet_server_connect in perftest_communication.c). */
final class PerftestTcpLink implements PerftestLink
{
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private PerftestTcpLink(final Socket socket) throws IOException
    {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** The client side: connects to a perftest (or mlx5j) server. */
    static PerftestTcpLink connect(final String host, final int port, final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final Socket s = new Socket();
            try
            {
                s.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                return new PerftestTcpLink(s);
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
    static PerftestTcpLink accept(final ServerSocket listener, final Duration timeout) throws IOException
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
        return new PerftestTcpLink(s);
    }

    @Override
    public void write(final byte[] msg, final String what) throws IOException
    {
        out.write(msg);
        out.flush();
    }

    @Override
    public byte[] read(final int length, final String what) throws IOException
    {
        final byte[] b = new byte[length];
        try
        {
            in.readFully(b);
        }
        catch (final EOFException e)
        {
            throw new IOException("the peer closed the connection during " + what, e);
        }
        catch (final SocketTimeoutException e)
        {
            throw new IOException("the peer sent no " + what + " in time", e);
        }
        return b;
    }

    @Override
    public void readTimeout(final Duration timeout) throws IOException
    {
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }

    @Override
    public boolean binaryDestinations()
    {
        return false;
    }

    /** ctx_close_connection: "done" and its NUL (perftest never reads the peer's). */
    @Override
    public void finish() throws IOException
    {
        out.write("done\0".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /**
     * Waits at most {@code limit} until the peer's end closes the socket (whatever still arrives is discarded) and
     * says whether it did: the end of write_lat, which has no closing exchange (perftest's write_lat.c returns after
     * its report and exits).
     */
    boolean awaitPeerEnd(final Duration limit) throws IOException
    {
        socket.setSoTimeout(Math.clamp(limit.toMillis(), 1, Integer.MAX_VALUE));
        try
        {
            while (in.read() >= 0)
            {
                // nothing more is due; whatever comes is not ours to read
            }
            return true;
        }
        catch (final SocketTimeoutException e)
        {
            return false;
        }
        catch (final SocketException e)
        {
            return true;    // reset: the peer is gone as surely as with a FIN
        }
    }

    @Override
    public String peer()
    {
        return String.valueOf(socket.getRemoteSocketAddress());
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
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
