// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvAsyncEvent;

/**
 * One asynchronous event of a device ({@code struct ibv_async_event}), as {@link AsyncEvents} delivers it: a reusable
 * view, filled again by every poll that uses it, so a program that keeps one allocates nothing per event.
 * <p>
 * What it names follows from its {@link #type()}, as in libibverbs: a QP ({@link #qpn()}, and
 * {@link #queuePair()} when the QP is an mlx5j object still open), a CQ ({@link #completionQueue()}, {@link #cqn()}),
 * an SRQ ({@link #sharedReceiveQueue()}, {@link #srqn()}) or a port ({@link #portNumber()}). Accessors of what the
 * event does not name return -1 or null. The event was acknowledged before the view was handed out
 * ({@link AsyncEvents} says why), so the object it names may already be closed: {@link NativeResource#isClosed()}
 * tells. A view belongs to the thread that polled into it until that thread polls into it again.
 */
public final class AsyncEvent
{
    /** What an event type is about: the member of {@code ibv_async_event.element} libibverbs fills. */
    public enum Element
    {
        /** The event names a CQ ({@code element.cq}). */
        CQ,
        /** The event names a QP ({@code element.qp}). */
        QP,
        /** The event names an SRQ ({@code element.srq}). */
        SRQ,
        /** The event names a WQ ({@code element.wq}). */
        WQ,
        /** The event names a port ({@code element.port_num}), or nothing (device fatal). */
        PORT
    }

    /** {@code enum ibv_event_type}, in its numeric order (verbs.h), with what each names. */
    public enum Type
    {
        /** {@code IBV_EVENT_CQ_ERR} (verbs.h). */
        CQ_ERR(Element.CQ),
        /** {@code IBV_EVENT_QP_FATAL} (verbs.h). */
        QP_FATAL(Element.QP),
        /** {@code IBV_EVENT_QP_REQ_ERR} (verbs.h). */
        QP_REQ_ERR(Element.QP),
        /** {@code IBV_EVENT_QP_ACCESS_ERR} (verbs.h). */
        QP_ACCESS_ERR(Element.QP),
        /** {@code IBV_EVENT_COMM_EST} (verbs.h). */
        COMM_EST(Element.QP),
        /** {@code IBV_EVENT_SQ_DRAINED} (verbs.h). */
        SQ_DRAINED(Element.QP),
        /** {@code IBV_EVENT_PATH_MIG} (verbs.h). */
        PATH_MIG(Element.QP),
        /** {@code IBV_EVENT_PATH_MIG_ERR} (verbs.h). */
        PATH_MIG_ERR(Element.QP),
        /** The whole device failed; names no object (libibverbs puts the raw element in port_num). */
        DEVICE_FATAL(Element.PORT),
        /** {@code IBV_EVENT_PORT_ACTIVE} (verbs.h). */
        PORT_ACTIVE(Element.PORT),
        /** {@code IBV_EVENT_PORT_ERR} (verbs.h). */
        PORT_ERR(Element.PORT),
        /** {@code IBV_EVENT_LID_CHANGE} (verbs.h). */
        LID_CHANGE(Element.PORT),
        /** {@code IBV_EVENT_PKEY_CHANGE} (verbs.h). */
        PKEY_CHANGE(Element.PORT),
        /** {@code IBV_EVENT_SM_CHANGE} (verbs.h). */
        SM_CHANGE(Element.PORT),
        /** {@code IBV_EVENT_SRQ_ERR} (verbs.h). */
        SRQ_ERR(Element.SRQ),
        /** {@code IBV_EVENT_SRQ_LIMIT_REACHED} (verbs.h). */
        SRQ_LIMIT_REACHED(Element.SRQ),
        /** {@code IBV_EVENT_QP_LAST_WQE_REACHED} (verbs.h). */
        QP_LAST_WQE_REACHED(Element.QP),
        /** {@code IBV_EVENT_CLIENT_REREGISTER} (verbs.h). */
        CLIENT_REREGISTER(Element.PORT),
        /** {@code IBV_EVENT_GID_CHANGE} (verbs.h). */
        GID_CHANGE(Element.PORT),
        /** {@code IBV_EVENT_WQ_FATAL} (verbs.h). */
        WQ_FATAL(Element.WQ);

        private static final Type[] ALL = values();
        private final Element element;

        Type(final Element element)
        {
            this.element = element;
        }

        /** {@return the {@code enum ibv_event_type} value} */
        public int value()
        {
            return ordinal();
        }

        /** {@return what an event of this type names} */
        public Element element()
        {
            return element;
        }

        /**
         * The type of an {@code enum ibv_event_type} value, or null for a value this rdma-core does not define.
         *
         * @param value an {@code enum ibv_event_type} value
         * @return the type, or null
         */
        public static Type of(final int value)
        {
            return value >= 0 && value < ALL.length ? ALL[value] : null;
        }

        static
        {
            if (WQ_FATAL.ordinal() != IbvAsyncEvent.IBV_EVENT_WQ_FATAL
                || QP_LAST_WQE_REACHED.ordinal() != IbvAsyncEvent.IBV_EVENT_QP_LAST_WQE_REACHED
                || PORT_ERR.ordinal() != IbvAsyncEvent.IBV_EVENT_PORT_ERR)
            {
                throw new AssertionError("AsyncEvent.Type out of step with enum ibv_event_type");
            }
        }
    }

    Context context;
    int typeValue = -1;
    Type type;
    long element;
    int qpn = -1;
    int cqn = -1;
    int srqn = -1;
    int port = -1;
    QueuePair queuePair;
    CompletionQueue completionQueue;
    SharedReceiveQueue sharedReceiveQueue;

    /** An empty view, for {@link AsyncEvents#poll(AsyncEvent)} to fill. */
    public AsyncEvent()
    {
    }

    /** {@return the event's type, or null when its number is not one of {@link Type} (see {@link #typeValue()})} */
    public Type type()
    {
        return type;
    }

    /** {@return the {@code enum ibv_event_type} number as read (-1 before the first fill)} */
    public int typeValue()
    {
        return typeValue;
    }

    /** {@return the context whose async fd delivered it} */
    public Context context()
    {
        return context;
    }

    /**
     * QP events: the QP number; -1 otherwise.
     *
     * @return the QP number, or -1
     */
    public int qpn()
    {
        return qpn;
    }

    /**
     * QP events: the mlx5j QP, or null if it is not one (or was closed before the event was read).
     *
     * @return the QP, or null
     */
    public QueuePair queuePair()
    {
        return queuePair;
    }

    /**
     * CQ events: the CQ number (mlx5's CQN, known for an mlx5j CQ on an mlx5 device); -1 otherwise.
     *
     * @return the CQ number, or -1
     */
    public int cqn()
    {
        return cqn;
    }

    /**
     * CQ events: the mlx5j CQ, or null.
     *
     * @return the CQ, or null
     */
    public CompletionQueue completionQueue()
    {
        return completionQueue;
    }

    /**
     * SRQ events: the SRQ number (mlx5's SRQN, known for an mlx5j SRQ on an mlx5 device); -1 otherwise.
     *
     * @return the SRQ number, or -1
     */
    public int srqn()
    {
        return srqn;
    }

    /**
     * SRQ events: the mlx5j SRQ, or null.
     *
     * @return the SRQ, or null
     */
    public SharedReceiveQueue sharedReceiveQueue()
    {
        return sharedReceiveQueue;
    }

    /**
     * Port events: the port number (from 1); -1 otherwise.
     *
     * @return the port number, or -1
     */
    public int portNumber()
    {
        return port;
    }

    /**
     * {@return the raw element: the {@code struct ibv_qp/ibv_cq/ibv_srq/ibv_wq *} of the object, for objects mlx5j does
     * not wrap (0 for port events)} Only an address: the object may be gone.
     */
    public long elementAddress()
    {
        return element;
    }

    /** Clears every field but the context, before a fill. */
    void reset(final Context context, final int typeValue)
    {
        this.context = context;
        this.typeValue = typeValue;
        this.type = Type.of(typeValue);
        this.element = 0;
        this.qpn = -1;
        this.cqn = -1;
        this.srqn = -1;
        this.port = -1;
        this.queuePair = null;
        this.completionQueue = null;
        this.sharedReceiveQueue = null;
    }

    @Override
    public String toString()
    {
        final String name = type == null ? "event " + typeValue : type.name();
        if (type == null)
        {
            return name;
        }
        return switch (type.element())
        {
            case QP -> name + " QPN 0x" + Integer.toHexString(qpn);
            case CQ -> name + " CQN 0x" + Integer.toHexString(cqn);
            case SRQ -> name + " SRQN 0x" + Integer.toHexString(srqn);
            case WQ -> name + " WQ 0x" + Long.toHexString(element);
            case PORT -> name + " port " + port;
        };
    }
}
