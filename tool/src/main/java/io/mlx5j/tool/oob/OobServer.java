// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.oob;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * The listening side of the out-of-band exchange: binds every local address with SO_REUSEADDR, as the examples'
 * server does (getaddrinfo with AI_PASSIVE), and accepts one connection at a time. Port 0 picks a free port
 * ({@link #port()}), which tests use.
 */
public final class OobServer implements AutoCloseable
{
    private final ServerSocket socket;

    private OobServer(final ServerSocket socket)
    {
        this.socket = socket;
    }

    public static OobServer listen(final int port)
    {
        if (port < 0 || port > 65535)
        {
            throw new IllegalArgumentException("TCP port must be in 0..65535, got " + port);
        }
        ServerSocket socket = null;
        try
        {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port), 1);
            return new OobServer(socket);
        }
        catch (final IOException ex)
        {
            if (socket != null)
            {
                try
                {
                    socket.close();
                }
                catch (final IOException ignored)
                {
                    // already failing
                }
            }
            throw new UncheckedIOException("cannot listen on TCP port " + port + ": " + ex.getMessage(), ex);
        }
    }

    /** The bound port. */
    public int port()
    {
        return socket.getLocalPort();
    }

    /** Waits up to {@code timeout} for one client; reads on the connection time out after {@code timeout} too. */
    public OobConnection accept(final Duration timeout)
    {
        try
        {
            socket.setSoTimeout(OobConnection.toMillis(timeout));
            final Socket client = socket.accept();
            return new OobConnection(client, timeout);
        }
        catch (final SocketTimeoutException ex)
        {
            throw new UncheckedIOException("no client connected to TCP port " + port() + " within "
                + timeout.toMillis() + " ms", ex);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("accept on TCP port " + port() + " failed: " + ex.getMessage(), ex);
        }
    }

    @Override
    public void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignored)
        {
            // closing a listening socket has nothing left to report
        }
    }
}
