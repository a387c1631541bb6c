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

    /** The requester's private data (IB CM pads it to 56 bytes for the TCP port space). */
    public byte[] privateData()
    {
        return event.privateData();
    }

    public InetSocketAddress remoteAddress()
    {
        return event.id().remoteAddress();
    }

    public InetSocketAddress localAddress()
    {
        return event.id().localAddress();
    }

    /** The device the request arrived on: create the QP there. */
    public String deviceName()
    {
        return event.id().deviceName();
    }

    public int port()
    {
        return event.id().port();
    }

    /** The requester's responder resources (how many READs it will serve for us). */
    public int responderResources()
    {
        return event.responderResources();
    }

    /** The requester's initiator depth (how many READs it will issue to us). */
    public int initiatorDepth()
    {
        return event.initiatorDepth();
    }

    public int retryCount()
    {
        return event.retryCount();
    }

    public int rnrRetryCount()
    {
        return event.rnrRetryCount();
    }

    /** The requester's QPN. */
    public int remoteQpn()
    {
        return event.qpNum();
    }

    /** The request's id (for options or calls mlx5j does not wrap). */
    public CmId id()
    {
        return event.id();
    }

    /**
     * Creates the QP ({@code qpFactory}), moves it to RTS with the CM's attributes, accepts with
     * {@code options.privateData()} / responder resources / initiator depth, and waits up to
     * {@code options.connectTimeout()} for ESTABLISHED (the requester's RTU). For a datagram port space the accept
     * is the SIDR reply carrying the UD QP's number and Q_Key, and returns at once.
     */
    public CmConnection accept(final QpFactory qpFactory, final ConnectOptions options)
    {
        return accept(qpFactory, options, null);
    }

    /**
     * {@link #accept(QpFactory, ConnectOptions)}; {@code onReceiveReady} runs with the QP in INIT, before the accept
     * is sent: post the receives the requester's first messages need.
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

    /** Rejects with {@code privateData} (the requester's REJECTED carries it) and destroys the request's id. */
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
