// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.Rdmacm;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A listening id ({@code rdma_bind_addr} + {@code rdma_listen}) that hands out {@link ConnectionRequest}s.
 */
public final class CmListener implements AutoCloseable
{
    private final CmId id;
    private final EventChannel ownedChannel;

    private CmListener(final CmId id, final EventChannel ownedChannel)
    {
        this.id = id;
        this.ownedChannel = ownedChannel;
    }

    /**
     * Listens on {@code address} (port 0: any free port, see {@link #port()}) for RC connections, on its own channel.
     */
    public static CmListener bind(final InetSocketAddress address, final int backlog)
    {
        final EventChannel channel = EventChannel.create();
        try
        {
            return bind(channel, true, PortSpace.TCP, address, backlog);
        }
        catch (final RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /** Listens on a shared channel (blocking mode) in {@code portSpace}. */
    public static CmListener bind(final EventChannel channel, final PortSpace portSpace,
        final InetSocketAddress address, final int backlog)
    {
        return bind(channel, false, portSpace, address, backlog);
    }

    private static CmListener bind(final EventChannel channel, final boolean owned, final PortSpace portSpace,
        final InetSocketAddress address, final int backlog)
    {
        final CmId id = channel.createId(portSpace);
        try
        {
            id.setReuseAddress(true);
            id.bind(address);
            id.listen(backlog);
            return new CmListener(id, owned ? channel : null);
        }
        catch (final RuntimeException ex)
        {
            CmConnection.abandon(id, null, ex);
            throw ex;
        }
    }

    /** The next connection request; {@link CmTimeoutException} if none arrives within {@code timeout}. */
    public ConnectionRequest awaitRequest(final Duration timeout)
    {
        return new ConnectionRequest(id.expect("listen on " + localAddress(), CmEventType.CONNECT_REQUEST, timeout),
            ownedChannel);
    }

    public InetSocketAddress localAddress()
    {
        return id.localAddress();
    }

    /** The port listened on ({@code rdma_get_src_port}), useful after binding port 0. */
    public int port()
    {
        return Short.reverseBytes(Rdmacm.rdma_get_src_port(id.pointer())) & 0xffff;
    }

    public CmId id()
    {
        return id;
    }

    /**
     * Destroys the listening id. A channel the listener made lives on while connections accepted from it are open,
     * and closes with the last of them (destroying requests never answered).
     */
    @Override
    public void close()
    {
        if (id.isClosed())
        {
            return;
        }
        try
        {
            id.close();
        }
        finally
        {
            if (ownedChannel != null)
            {
                ownedChannel.release();
            }
        }
    }

    @Override
    public String toString()
    {
        return "CmListener(" + (id.isClosed() ? "closed" : String.valueOf(localAddress())) + ")";
    }
}
