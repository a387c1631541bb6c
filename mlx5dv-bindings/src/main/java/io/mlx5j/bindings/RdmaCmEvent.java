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
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaCmEvent
{
    /** enum rdma_cm_event_type, in declaration order. */
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    /** {@code RDMA_CM_EVENT_ADDR_ERROR} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    /** {@code RDMA_CM_EVENT_CONNECT_REQUEST} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    /** {@code RDMA_CM_EVENT_CONNECT_RESPONSE} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    /** {@code RDMA_CM_EVENT_UNREACHABLE} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    /** {@code RDMA_CM_EVENT_REJECTED} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    /** {@code RDMA_CM_EVENT_ESTABLISHED} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    /** {@code RDMA_CM_EVENT_DISCONNECTED} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_MULTICAST_JOIN = 12;
    /** {@code RDMA_CM_EVENT_MULTICAST_ERROR} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_MULTICAST_ERROR = 13;
    /** {@code RDMA_CM_EVENT_ADDR_CHANGE} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    /** Memory layout of {@code struct rdma_cm_event} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("id"),
        C_POINTER.withName("listen_id"),
        C_INT.withName("event"),
        C_INT.withName("status"),
        unionLayout(
            RdmaConnParam.LAYOUT.withName("conn"),
            RdmaUdParam.LAYOUT.withName("ud")).withName("param")).withName("rdma_cm_event");

    /** Byte offset of {@code id} in {@code struct rdma_cm_event}. */
    public static final long ID_OFFSET = offset(LAYOUT, "id");
    /** Byte offset of {@code listen_id} in {@code struct rdma_cm_event}. */
    public static final long LISTEN_ID_OFFSET = offset(LAYOUT, "listen_id");
    /** Byte offset of {@code event} in {@code struct rdma_cm_event}. */
    public static final long EVENT_OFFSET = offset(LAYOUT, "event");
    /** Byte offset of {@code status} in {@code struct rdma_cm_event}. */
    public static final long STATUS_OFFSET = offset(LAYOUT, "status");
    /** Byte offset of {@code param.conn} in {@code struct rdma_cm_event}. */
    public static final long CONN_OFFSET = offset(LAYOUT, "param", "conn");
    /** Byte offset of {@code param.ud} in {@code struct rdma_cm_event}. */
    public static final long UD_OFFSET = offset(LAYOUT, "param", "ud");

    private RdmaCmEvent()
    {
    }
}
