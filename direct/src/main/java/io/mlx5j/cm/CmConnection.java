// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.verbs.QueuePair;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * An established rdma_cm connection: the id and the {@link QueuePair} it connected, in RTS and ready for
 * {@code SendQueue}/{@code CqPoller}. Made by {@link #connect} (active side) or
 * {@link ConnectionRequest#accept} (passive side); it owns the QP and the id, and shares the ownership of the event
 * channel mlx5j made for it (its own on the active side, its listener's on the passive side).
 * <p>
 * Every step has a timeout and fails with a {@link CmException} naming the step, the CM event and its status; on
 * any failure the QP and the id made for the attempt are destroyed before the exception leaves.
 */
public final class CmConnection implements AutoCloseable
{
    /**
     * Grace on top of a resolve timeout handed to librdmacm: the CM reports ADDR_ERROR / ROUTE_ERROR itself when
     * its timeout expires, and that event (with its status) is the better answer than our own timeout.
     */
    static final Duration CM_GRACE = Duration.ofMillis(500);

    private final CmId id;
    private final QueuePair qp;
    private final EventChannel ownedChannel;
    private final CmEvent established;
    private final byte[] peerPrivateData;
    private volatile boolean disconnected;
    private volatile boolean closed;

    CmConnection(final CmId id, final QueuePair qp, final EventChannel ownedChannel, final CmEvent established,
        final byte[] peerPrivateData)
    {
        this.id = id;
        this.qp = qp;
        this.ownedChannel = ownedChannel;
        this.established = established;
        this.peerPrivateData = peerPrivateData;
    }

    /**
     * Connects to {@code destination} over a connected (RC) QP on an event channel of its own: resolve address,
     * resolve route, create the QP ({@code qpFactory}, now that the device is known), connect, wait for ESTABLISHED.
     * Blocks the calling thread for at most the sum of the timeouts in {@code options}.
     *
     * @param destination the peer's IP address and port (a {@link CmListener} there)
     * @param options     timeouts, private data and connection parameters
     * @param qpFactory   makes the RC QP on the device the address resolved to
     * @return the connection, its QP in RTS
     * @throws CmException the failing step: {@link CmAddressException}, {@link CmRouteException},
     *                     {@link CmRejectedException}, {@link CmUnreachableException}, {@link CmTimeoutException},
     *                     {@link CmCallException}; the QP and id made for the attempt are destroyed first
     * @throws IllegalArgumentException if {@code qpFactory} made a QP that is not RC
     */
    public static CmConnection connect(final InetSocketAddress destination, final ConnectOptions options,
        final QpFactory qpFactory)
    {
        return connect(destination, options, qpFactory, null);
    }

    /**
     * {@link #connect(InetSocketAddress, ConnectOptions, QpFactory)}; {@code onReceiveReady} runs when the QP can take
     * receives, before the request is sent (see {@link CmId#connect(QueuePair, ConnectOptions, Consumer)}).
     *
     * @param destination    the peer's IP address and port
     * @param options        timeouts, private data and connection parameters
     * @param qpFactory      makes the RC QP on the device the address resolved to
     * @param onReceiveReady runs on the calling thread with the QP in INIT, to post the first receives; may be null
     * @return the connection, its QP in RTS
     * @throws CmException the failing step, as for {@link #connect(InetSocketAddress, ConnectOptions, QpFactory)}
     * @throws IllegalArgumentException if {@code qpFactory} made a QP that is not RC
     */
    public static CmConnection connect(final InetSocketAddress destination, final ConnectOptions options,
        final QpFactory qpFactory, final Consumer<QueuePair> onReceiveReady)
    {
        final EventChannel channel = EventChannel.create();
        try
        {
            return connect(channel, true, PortSpace.TCP, destination, options, qpFactory, onReceiveReady);
        }
        catch (final RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /**
     * Like {@link #connect(InetSocketAddress, ConnectOptions, QpFactory)}, on a shared channel in blocking mode. The
     * channel stays the caller's: closing the connection does not close it.
     *
     * @param channel     the channel the new id reports to; must not be consumed with {@link EventChannel#poll}
     * @param portSpace   {@link PortSpace#TCP} for RC; {@link PortSpace#UDP} / {@link PortSpace#IPOIB} for a UD
     *                    QP resolved by SIDR
     * @param destination the peer's IP address and port
     * @param options     timeouts, private data and connection parameters
     * @param qpFactory   makes the QP (RC, or UD for a datagram port space) on the resolved device
     * @return the connection, its QP in RTS
     * @throws CmException the failing step, as for {@link #connect(InetSocketAddress, ConnectOptions, QpFactory)}
     * @throws IllegalArgumentException if the QP's type does not match {@code portSpace}
     */
    public static CmConnection connect(final EventChannel channel, final PortSpace portSpace,
        final InetSocketAddress destination, final ConnectOptions options, final QpFactory qpFactory)
    {
        return connect(channel, false, portSpace, destination, options, qpFactory, null);
    }

    private static CmConnection connect(final EventChannel channel, final boolean owned, final PortSpace portSpace,
        final InetSocketAddress destination, final ConnectOptions options, final QpFactory qpFactory,
        final Consumer<QueuePair> onReceiveReady)
    {
        final CmId id = channel.createId(portSpace);
        QueuePair qp = null;
        try
        {
            if (options.typeOfService() >= 0)
            {
                id.setTypeOfService(options.typeOfService());
            }
            id.resolveAddress(options.source(), destination, options.addressTimeout());
            id.expect("resolve address " + destination, CmEventType.ADDR_RESOLVED,
                options.addressTimeout().plus(CM_GRACE));
            if (options.ackTimeout() >= 0)
            {
                id.setAckTimeout(options.ackTimeout());
            }
            id.resolveRoute(options.routeTimeout());
            id.expect("resolve route to " + destination, CmEventType.ROUTE_RESOLVED,
                options.routeTimeout().plus(CM_GRACE));
            qp = qpFactory.create(id);
            id.connect(qp, options, onReceiveReady);
            final CmEvent established = id.expect("connect to " + destination, CmEventType.ESTABLISHED,
                options.connectTimeout());
            return new CmConnection(id, qp, owned ? channel : null, established, established.privateData());
        }
        catch (final RuntimeException ex)
        {
            abandon(id, qp, ex);
            throw ex;
        }
    }

    /** Destroys what a failed attempt made; failures while doing so are attached to {@code cause}. */
    static void abandon(final CmId id, final QueuePair qp, final RuntimeException cause)
    {
        try
        {
            id.close();
        }
        catch (final RuntimeException ex)
        {
            cause.addSuppressed(ex);
        }
        if (qp != null)
        {
            try
            {
                qp.close();
            }
            catch (final RuntimeException ex)
            {
                cause.addSuppressed(ex);
            }
        }
    }

    /**
     * The connected QP; the connection owns it and closes it in {@link #close()}.
     *
     * @return the QP, RC in RTS (UD in RTS for a datagram port space)
     */
    public QueuePair qp()
    {
        return qp;
    }

    /**
     * The id behind the connection, for what this class does not wrap (GIDs, options); the connection owns it.
     *
     * @return the connected id
     */
    public CmId id()
    {
        return id;
    }

    /**
     * The peer's private data: the accept's on the active side, the request's on the passive side.
     *
     * @return a copy, as the transport delivered it (IB CM pads it, so it may be longer than what the peer sent)
     */
    public byte[] peerPrivateData()
    {
        return peerPrivateData.clone();
    }

    /**
     * The ESTABLISHED event that completed the connection.
     *
     * @return the event: negotiated responder resources and initiator depth; address vector, QPN and Q_Key on UD
     */
    public CmEvent establishedEvent()
    {
        return established;
    }

    /**
     * The local end ({@code rdma_get_local_addr}).
     *
     * @return the local IP address and port
     */
    public InetSocketAddress localAddress()
    {
        return id.localAddress();
    }

    /**
     * The peer's end ({@code rdma_get_peer_addr}).
     *
     * @return the peer's IP address and port
     */
    public InetSocketAddress remoteAddress()
    {
        return id.remoteAddress();
    }

    /**
     * Whether a DISCONNECTED event has been read by {@link #awaitEvent}; safe to call from any thread (volatile).
     *
     * @return true once DISCONNECTED was seen (by this side's {@link #disconnect} or the peer's)
     */
    public boolean isDisconnected()
    {
        return disconnected;
    }

    /**
     * The next event of this connection (DISCONNECTED, TIMEWAIT_EXIT, ...); see {@link CmId#awaitEvent(Duration)}.
     *
     * @param timeout how long to block the calling thread
     * @return the event, or null if none came within {@code timeout}
     * @throws IllegalStateException if the connection's id is closed
     */
    public CmEvent awaitEvent(final Duration timeout)
    {
        final CmEvent event = id.awaitEvent(timeout);
        if (event != null && event.type() == CmEventType.DISCONNECTED)
        {
            disconnected = true;
        }
        return event;
    }

    /**
     * Waits for DISCONNECTED (the peer disconnected or died), dropping other events of this connection.
     *
     * @param timeout how long to block the calling thread
     * @return true once DISCONNECTED was seen, false if it did not come within {@code timeout}
     * @throws IllegalStateException if the connection's id is closed
     */
    public boolean awaitDisconnected(final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!disconnected)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0 || awaitEvent(Duration.ofNanos(left)) == null)
            {
                return disconnected;
            }
        }
        return true;
    }

    /**
     * Disconnects ({@code rdma_disconnect}, the QP to ERR) and waits for the CM's DISCONNECTED. Does nothing if
     * DISCONNECTED was already seen.
     *
     * @param timeout how long to wait for DISCONNECTED
     * @throws CmTimeoutException if DISCONNECTED does not come within {@code timeout}
     * @throws CmCallException if {@code rdma_disconnect} fails
     * @throws IllegalStateException if the connection's id is closed
     */
    public void disconnect(final Duration timeout)
    {
        if (disconnected)
        {
            return;
        }
        id.disconnect();
        if (!awaitDisconnected(timeout))
        {
            throw new CmTimeoutException("disconnect", CmEventType.DISCONNECTED.cName(), timeout);
        }
    }

    /**
     * Disconnects if still connected (without waiting), then destroys the QP, the id and an owned channel.
     * Idempotent. The QP's destroy follows the data path's close rule: call this from the thread that posts to the
     * QP and polls its CQ, or first hand the QP's teardown to that thread with
     * {@link io.mlx5j.direct.CqPoller#closeAsync} and await it (then this destroys the id and channel only).
     *
     * @throws IllegalStateException if destroying the id, the QP or the channel failed; the failures are attached
     *                               as suppressed exceptions, and the rest was still destroyed
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final RuntimeException failure = new IllegalStateException("closing " + this);
        if (!disconnected && !id.portSpace().isDatagram())   // a SIDR "connection" has nothing to disconnect
        {
            try
            {
                id.disconnect();
            }
            catch (final RuntimeException ex)
            {
                // the peer may have gone first; the id is destroyed below either way
            }
        }
        abandon(id, qp, failure);
        if (ownedChannel != null)
        {
            try
            {
                ownedChannel.release();
            }
            catch (final RuntimeException ex)
            {
                failure.addSuppressed(ex);
            }
        }
        if (failure.getSuppressed().length > 0)
        {
            throw failure;
        }
    }

    @Override
    public String toString()
    {
        return "CmConnection(" + qp + (closed ? ", closed)" : ")");
    }
}
