// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.oob;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * One TCP connection of the out-of-band exchange: fixed-size messages with a deadline on every read. Control path
 * only (allocates); one thread at a time.
 * <p>
 * Each message goes out in one {@code write} of exactly its size with Nagle off, because the rdma-core examples read
 * each message with a single {@code read()} and treat a short count as failure; on loopback and on a LAN one small
 * write arrives as one segment. Reads here loop until the whole message is in, so mlx5j itself does not depend on that.
 */
public final class OobConnection implements AutoCloseable
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String peer;

    OobConnection(final Socket socket, final Duration timeout) throws IOException
    {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(toMillis(timeout));
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.peer = String.valueOf(socket.getRemoteSocketAddress());
    }

    /**
     * Connects to {@code host:port}, retrying refused connections until {@code timeout} has passed (the server may
     * still be starting; ibv_rc_pingpong itself tries once). Reads on the connection also time out after
     * {@code timeout}.
     */
    public static OobConnection connect(final String host, final int port, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        IOException last = null;
        while (true)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                break;
            }
            final Socket socket = new Socket();
            try
            {
                socket.connect(new InetSocketAddress(host, port), (int) Math.max(1, Math.min(left / 1_000_000, 5_000)));
                return new OobConnection(socket, timeout);
            }
            catch (final ConnectException | SocketTimeoutException ex)
            {
                last = ex;
                closeQuietly(socket);
                sleep(50);
            }
            catch (final IOException ex)
            {
                closeQuietly(socket);
                throw new UncheckedIOException("cannot connect to " + host + ":" + port + ": " + ex.getMessage(), ex);
            }
        }
        throw new UncheckedIOException("cannot connect to " + host + ":" + port + " within " + timeout.toMillis()
            + " ms" + (last != null ? ": " + last.getMessage() : ""), last != null ? last : new IOException("timeout"));
    }

    /** Sends {@code message} in one write. */
    public void send(final byte[] message)
    {
        try
        {
            out.write(message);
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("sending " + message.length + " bytes to " + peer + " failed: "
                + ex.getMessage(), ex);
        }
    }

    /** Reads exactly {@code size} bytes; fails on end of stream or when the deadline of a read passes. */
    public byte[] receive(final int size, final String what)
    {
        final byte[] message = new byte[size];
        int got = 0;
        try
        {
            while (got < size)
            {
                final int n = in.read(message, got, size - got);
                if (n < 0)
                {
                    throw new EOFException(peer + " closed the connection after " + got + " of the " + size
                        + " bytes of the " + what + " message");
                }
                got += n;
            }
            return message;
        }
        catch (final SocketTimeoutException ex)
        {
            throw new UncheckedIOException("no " + what + " message from " + peer + " in time (" + got + " of " + size
                + " bytes)", ex);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("receiving the " + what + " message from " + peer + " failed: "
                + ex.getMessage(), ex);
        }
    }

    /**
     * Changes how long a read may wait: {@link Duration#ZERO} waits until a message or the end of the stream (for a
     * peer that is busy measuring for an unknown time; its exit or crash still ends the wait through EOF/RST).
     */
    public void readTimeout(final Duration timeout)
    {
        try
        {
            socket.setSoTimeout(timeout.isZero() ? 0 : toMillis(timeout));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot set the read timeout on the connection to " + peer, ex);
        }
    }

    /** Who is on the other end, for messages. */
    public String peer()
    {
        return peer;
    }

    @Override
    public void close()
    {
        closeQuietly(socket);
    }

    static int toMillis(final Duration timeout)
    {
        if (timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    }

    private static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignored)
        {
            // nothing to do: the connection is finished either way
        }
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting", ex);
        }
    }
}
