// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct ibv_async_event} (verbs.h, rdma-core 44): what ibv_get_async_event fills. {@code element} is a union:
 * the object's pointer for QP, CQ, SRQ and WQ events, the port number for port events (which of them follows from
 * {@code event_type}, as ibv_get_async_event's own switch decides).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvAsyncEvent
{
    /** enum ibv_event_type. */
    public static final int IBV_EVENT_CQ_ERR = 0;
    /** {@code IBV_EVENT_QP_FATAL} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_QP_FATAL = 1;
    /** {@code IBV_EVENT_QP_REQ_ERR} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_QP_REQ_ERR = 2;
    /** {@code IBV_EVENT_QP_ACCESS_ERR} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    /** {@code IBV_EVENT_COMM_EST} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_COMM_EST = 4;
    /** {@code IBV_EVENT_SQ_DRAINED} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_SQ_DRAINED = 5;
    /** {@code IBV_EVENT_PATH_MIG} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_PATH_MIG = 6;
    /** {@code IBV_EVENT_PATH_MIG_ERR} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_PATH_MIG_ERR = 7;
    /** {@code IBV_EVENT_DEVICE_FATAL} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_DEVICE_FATAL = 8;
    /** {@code IBV_EVENT_PORT_ACTIVE} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_PORT_ACTIVE = 9;
    /** {@code IBV_EVENT_PORT_ERR} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_PORT_ERR = 10;
    /** {@code IBV_EVENT_LID_CHANGE} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_LID_CHANGE = 11;
    /** {@code IBV_EVENT_PKEY_CHANGE} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_PKEY_CHANGE = 12;
    /** {@code IBV_EVENT_SM_CHANGE} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_SM_CHANGE = 13;
    /** {@code IBV_EVENT_SRQ_ERR} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_SRQ_ERR = 14;
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;
    /** {@code IBV_EVENT_QP_LAST_WQE_REACHED} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_QP_LAST_WQE_REACHED = 16;
    /** {@code IBV_EVENT_CLIENT_REREGISTER} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_CLIENT_REREGISTER = 17;
    /** {@code IBV_EVENT_GID_CHANGE} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_GID_CHANGE = 18;
    /** {@code IBV_EVENT_WQ_FATAL} ({@code infiniband/verbs.h}). */
    public static final int IBV_EVENT_WQ_FATAL = 19;

    /** Memory layout of {@code struct ibv_async_event} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        unionLayout(
            C_POINTER.withName("cq"),
            C_POINTER.withName("qp"),
            C_POINTER.withName("srq"),
            C_POINTER.withName("wq"),
            C_INT.withName("port_num")).withName("element"),
        C_INT.withName("event_type"),
        pad(4)).withName("ibv_async_event");

    /** Byte offset of {@code element} in {@code struct ibv_async_event}. */
    public static final long ELEMENT_OFFSET = offset(LAYOUT, "element");
    /** Byte offset of {@code event_type} in {@code struct ibv_async_event}. */
    public static final long EVENT_TYPE_OFFSET = offset(LAYOUT, "event_type");

    private IbvAsyncEvent()
    {
    }
}
