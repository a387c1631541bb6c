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
     * The address is bound with RDMA_OPTION_ID_REUSEADDR, so a restarted listener can take the port at once.
     *
     * @param address the local IP address (a wildcard address listens on every RDMA device) and port
     * @param backlog the most pending requests not yet taken by {@link #awaitRequest}
     * @return the listener
     * @throws CmCallException if creating the id, binding ({@code EADDRINUSE}, {@code EADDRNOTAVAIL}) or listening
     *                         fails; the id and channel are destroyed first
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

    /**
     * Listens on a shared channel (blocking mode) in {@code portSpace}. The channel stays the caller's: closing the
     * listener does not close it.
     *
     * @param channel   the channel the listening id reports to; must not be consumed with {@link EventChannel#poll}
     * @param portSpace {@link PortSpace#TCP} for RC requests, {@link PortSpace#UDP} / {@link PortSpace#IPOIB} for
     *                  SIDR requests
     * @param address   the local IP address and port (port 0: any free port)
     * @param backlog   the most pending requests not yet taken by {@link #awaitRequest}
     * @return the listener
     * @throws CmCallException if creating the id, binding or listening fails; the id is destroyed first
     */
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

    /**
     * Blocks the calling thread for the next connection request.
     *
     * @param timeout how long to wait
     * @return the request; it must be accepted or rejected
     * @throws CmTimeoutException if no request arrives within {@code timeout}
     * @throws CmException if another event reached the listening id (DEVICE_REMOVAL, ...)
     * @throws IllegalStateException if the listener is closed
     */
    public ConnectionRequest awaitRequest(final Duration timeout)
    {
        return new ConnectionRequest(id.expect("listen on " + localAddress(), CmEventType.CONNECT_REQUEST, timeout),
            ownedChannel);
    }

    /**
     * The bound address ({@code rdma_get_local_addr}).
     *
     * @return the local IP address and port listened on
     */
    public InetSocketAddress localAddress()
    {
        return id.localAddress();
    }

    /**
     * The port listened on ({@code rdma_get_src_port}), useful after binding port 0.
     *
     * @return the port, 1..65535
     */
    public int port()
    {
        return Short.reverseBytes(Rdmacm.rdma_get_src_port(id.pointer())) & 0xffff;
    }

    /**
     * The listening id, for what this class does not wrap; the listener owns it.
     *
     * @return the listening id
     */
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
