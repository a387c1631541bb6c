// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.verbs.QueuePair;

import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * An incoming CONNECT_REQUEST from {@link CmListener#awaitRequest}: who asks, with what private data and
 * parameters, on which device. Accept it (creating the QP on {@link #deviceName()}) or reject it; either way the
 * request's id is then taken care of (owned by the connection, or destroyed).
 */
public final class ConnectionRequest
{
    private final CmEvent event;
    /** The listener's own channel, which an accepted connection keeps open; null for a caller's channel. */
    private final EventChannel listenerChannel;
    private boolean answered;

    ConnectionRequest(final CmEvent event, final EventChannel listenerChannel)
    {
        this.event = event;
        this.listenerChannel = listenerChannel;
    }

    /**
     * The requester's private data.
     *
     * @return a copy (IB CM pads it to 56 bytes for the TCP port space)
     */
    public byte[] privateData()
    {
        return event.privateData();
    }

    /**
     * The requester's end.
     *
     * @return the requester's IP address and port
     */
    public InetSocketAddress remoteAddress()
    {
        return event.id().remoteAddress();
    }

    /**
     * The end the request arrived at.
     *
     * @return the listener's IP address and the port
     */
    public InetSocketAddress localAddress()
    {
        return event.id().localAddress();
    }

    /**
     * The device the request arrived on: create the QP there.
     *
     * @return the RDMA device name, e.g. {@code mlx5_0}
     */
    public String deviceName()
    {
        return event.id().deviceName();
    }

    /**
     * The device port the request arrived on.
     *
     * @return the port number, from 1
     */
    public int port()
    {
        return event.id().port();
    }

    /**
     * The requester's responder resources.
     *
     * @return how many RDMA READ / atomic requests from us it serves in flight, 0..255
     */
    public int responderResources()
    {
        return event.responderResources();
    }

    /**
     * The requester's initiator depth.
     *
     * @return how many RDMA READ / atomic requests it issues to us in flight, 0..255
     */
    public int initiatorDepth()
    {
        return event.initiatorDepth();
    }

    /**
     * The requester's transport retry count.
     *
     * @return 0..7
     */
    public int retryCount()
    {
        return event.retryCount();
    }

    /**
     * The requester's receiver-not-ready retry count.
     *
     * @return 0..7 (7: forever)
     */
    public int rnrRetryCount()
    {
        return event.rnrRetryCount();
    }

    /**
     * The requester's QP number.
     *
     * @return the 24-bit QPN
     */
    public int remoteQpn()
    {
        return event.qpNum();
    }

    /**
     * The request's id (for options or calls mlx5j does not wrap); the accepted connection takes it over.
     *
     * @return the id librdmacm created for the request
     */
    public CmId id()
    {
        return event.id();
    }

    /**
     * Creates the QP ({@code qpFactory}), moves it to RTS with the CM's attributes, accepts with
     * {@code options.privateData()} / responder resources / initiator depth, and waits up to
     * {@code options.connectTimeout()} for ESTABLISHED (the requester's RTU). For a datagram port space the accept
     * is the SIDR reply carrying the UD QP's number and Q_Key, and returns at once.
     *
     * @param qpFactory makes the QP (RC, or UD for a datagram port space) on {@link #deviceName()}
     * @param options   private data, responder resources, initiator depth and the connect timeout
     * @return the connection, its QP in RTS
     * @throws IllegalStateException if the request was already accepted or rejected
     * @throws IllegalArgumentException if the QP's type does not match the port space
     * @throws CmException if a step fails ({@link CmTimeoutException} without ESTABLISHED in time,
     *                     {@link CmCallException} for a failed call); the QP and the request's id are destroyed first
     */
    public CmConnection accept(final QpFactory qpFactory, final ConnectOptions options)
    {
        return accept(qpFactory, options, null);
    }

    /**
     * {@link #accept(QpFactory, ConnectOptions)}; {@code onReceiveReady} runs with the QP in INIT, before the accept
     * is sent: post the receives the requester's first messages need.
     *
     * @param qpFactory      makes the QP (RC, or UD for a datagram port space) on {@link #deviceName()}
     * @param options        private data, responder resources, initiator depth and the connect timeout
     * @param onReceiveReady runs on the calling thread with the QP in INIT; may be null
     * @return the connection, its QP in RTS
     * @throws IllegalStateException if the request was already accepted or rejected
     * @throws IllegalArgumentException if the QP's type does not match the port space
     * @throws CmException if a step fails; the QP and the request's id are destroyed first
     */
    public CmConnection accept(final QpFactory qpFactory, final ConnectOptions options,
        final Consumer<QueuePair> onReceiveReady)
    {
        answer();
        final CmId id = event.id();
        QueuePair qp = null;
        try
        {
            qp = qpFactory.create(id);
            id.accept(qp, options, onReceiveReady);
            // a datagram (SIDR) request is answered by the accept itself: the passive side gets no ESTABLISHED
            final CmEvent established = id.portSpace().isDatagram() ? event
                : id.expect("accept from " + remoteAddress(), CmEventType.ESTABLISHED, options.connectTimeout());
            if (listenerChannel != null)
            {
                listenerChannel.retain();
            }
            return new CmConnection(id, qp, listenerChannel, established, event.privateData());
        }
        catch (final RuntimeException ex)
        {
            CmConnection.abandon(id, qp, ex);
            throw ex;
        }
    }

    /**
     * Rejects with {@code privateData} (the requester's REJECTED carries it) and destroys the request's id.
     *
     * @param privateData at most 255 bytes; the requester sees it padded to 148
     * @throws IllegalStateException if the request was already accepted or rejected
     * @throws IllegalArgumentException if {@code privateData} is longer than 255 bytes
     * @throws CmCallException if {@code rdma_reject} fails (the id is destroyed all the same)
     */
    public void reject(final byte[] privateData)
    {
        answer();
        final CmId id = event.id();
        try
        {
            id.reject(privateData);
        }
        finally
        {
            id.close();
        }
    }

    private void answer()
    {
        if (answered)
        {
            throw new IllegalStateException("this request was already accepted or rejected");
        }
        answered = true;
    }

    @Override
    public String toString()
    {
        return "ConnectionRequest(" + event.id() + ")";
    }
}
