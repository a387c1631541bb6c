// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct rdma_cm_event} (rdma/rdma_cma.h, rdma-core 44): one event from rdma_get_cm_event, valid (with the
 * private data it points to) until rdma_ack_cm_event. {@code param} is {@code conn} for connected port spaces and
 * {@code ud} for RDMA_PS_UDP / RDMA_PS_IPOIB.
 */
public final class RdmaCmEvent
{
    /** enum rdma_cm_event_type, in declaration order. */
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int RDMA_CM_EVENT_MULTICAST_JOIN = 12;
    public static final int RDMA_CM_EVENT_MULTICAST_ERROR = 13;
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("id"),
        C_POINTER.withName("listen_id"),
        C_INT.withName("event"),
        C_INT.withName("status"),
        unionLayout(
            RdmaConnParam.LAYOUT.withName("conn"),
            RdmaUdParam.LAYOUT.withName("ud")).withName("param")).withName("rdma_cm_event");

    public static final long ID_OFFSET = offset(LAYOUT, "id");
    public static final long LISTEN_ID_OFFSET = offset(LAYOUT, "listen_id");
    public static final long EVENT_OFFSET = offset(LAYOUT, "event");
    public static final long STATUS_OFFSET = offset(LAYOUT, "status");
    public static final long CONN_OFFSET = offset(LAYOUT, "param", "conn");
    public static final long UD_OFFSET = offset(LAYOUT, "param", "ud");

    private RdmaCmEvent()
    {
    }
}
