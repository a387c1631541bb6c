// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.RdmaCmEvent;

/** {@code enum rdma_cm_event_type} (rdma/rdma_cma.h), in its numeric order; {@link #name()} minus the C prefix. */
public enum CmEventType
{
    /** rdma_resolve_addr succeeded: the id is bound to a device, port and GIDs. */
    ADDR_RESOLVED,
    /** rdma_resolve_addr failed; the status is minus an errno. */
    ADDR_ERROR,
    /** rdma_resolve_route succeeded: the path is known, a QP can be created and connected. */
    ROUTE_RESOLVED,
    /** rdma_resolve_route failed; the status is minus an errno. */
    ROUTE_ERROR,
    /** On a listener: a peer asks to connect; the event carries a new id for the request. */
    CONNECT_REQUEST,
    /** The passive side accepted; the channel completes the QP to RTS and reports ESTABLISHED instead. */
    CONNECT_RESPONSE,
    /** An error while establishing the connection. */
    CONNECT_ERROR,
    /** The peer did not answer, or a SIDR request failed. */
    UNREACHABLE,
    /** The peer rejected the request; the status is the IB CM reject reason. */
    REJECTED,
    /** The connection is up (active side: after the RTU; datagram: the SIDR reply arrived). */
    ESTABLISHED,
    /** The connection is down, by either side's rdma_disconnect or the peer's death. */
    DISCONNECTED,
    /** The RDMA device the id is on is going away: destroy the id. */
    DEVICE_REMOVAL,
    /** rdma_join_multicast succeeded; the event carries the group's address vector and Q_Key. */
    MULTICAST_JOIN,
    /** A multicast join failed, or an existing membership was lost. */
    MULTICAST_ERROR,
    /** The network address the id is bound to changed (e.g. a bonding failover). */
    ADDR_CHANGE,
    /** The QP of a disconnected connection left the IB CM's timewait state and can be reused. */
    TIMEWAIT_EXIT;

    static
    {
        // the Java order is the C numbering; a reordered header would break every event silently
        if (TIMEWAIT_EXIT.ordinal() != RdmaCmEvent.RDMA_CM_EVENT_TIMEWAIT_EXIT
            || REJECTED.ordinal() != RdmaCmEvent.RDMA_CM_EVENT_REJECTED)
        {
            throw new AssertionError("CmEventType out of step with enum rdma_cm_event_type");
        }
    }

    /**
     * The C value.
     *
     * @return the {@code enum rdma_cm_event_type} number, 0..15
     */
    public int value()
    {
        return ordinal();
    }

    /**
     * The C name, as rdma_event_str prints it.
     *
     * @return e.g. {@code RDMA_CM_EVENT_ESTABLISHED}
     */
    public String cName()
    {
        return "RDMA_CM_EVENT_" + name();
    }

    static CmEventType of(final int value)
    {
        final CmEventType[] all = values();
        if (value < 0 || value >= all.length)
        {
            throw new IllegalStateException("unknown rdma_cm_event_type " + value);
        }
        return all[value];
    }
}
