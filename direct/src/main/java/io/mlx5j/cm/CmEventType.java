// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.RdmaCmEvent;

/** {@code enum rdma_cm_event_type} (rdma/rdma_cma.h), in its numeric order; {@link #name()} minus the C prefix. */
public enum CmEventType
{
    ADDR_RESOLVED,
    ADDR_ERROR,
    ROUTE_RESOLVED,
    ROUTE_ERROR,
    CONNECT_REQUEST,
    CONNECT_RESPONSE,
    CONNECT_ERROR,
    UNREACHABLE,
    REJECTED,
    ESTABLISHED,
    DISCONNECTED,
    DEVICE_REMOVAL,
    MULTICAST_JOIN,
    MULTICAST_ERROR,
    ADDR_CHANGE,
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

    /** The C value. */
    public int value()
    {
        return ordinal();
    }

    /** The C name, as rdma_event_str prints it. */
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
