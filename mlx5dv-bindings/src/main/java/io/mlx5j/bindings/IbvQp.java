// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_qp} (verbs.h, rdma-core 44). {@code state} is libibverbs' cached view after ibv_modify_qp. */
public final class IbvQp
{
    /** Memory layout of {@code struct ibv_qp} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("qp_context"),
        C_POINTER.withName("pd"),
        C_POINTER.withName("send_cq"),
        C_POINTER.withName("recv_cq"),
        C_POINTER.withName("srq"),
        U32.withName("handle"),
        U32.withName("qp_num"),
        C_INT.withName("state"),
        C_INT.withName("qp_type"),
        PTHREAD_MUTEX_T.withName("mutex"),
        PTHREAD_COND_T.withName("cond"),
        U32.withName("events_completed"),
        pad(4)).withName("ibv_qp");

    /** Byte offset of {@code context} in {@code struct ibv_qp}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code qp_context} in {@code struct ibv_qp}. */
    public static final long QP_CONTEXT_OFFSET = offset(LAYOUT, "qp_context");
    /** Byte offset of {@code pd} in {@code struct ibv_qp}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code send_cq} in {@code struct ibv_qp}. */
    public static final long SEND_CQ_OFFSET = offset(LAYOUT, "send_cq");
    /** Byte offset of {@code recv_cq} in {@code struct ibv_qp}. */
    public static final long RECV_CQ_OFFSET = offset(LAYOUT, "recv_cq");
    /** Byte offset of {@code srq} in {@code struct ibv_qp}. */
    public static final long SRQ_OFFSET = offset(LAYOUT, "srq");
    /** Byte offset of {@code handle} in {@code struct ibv_qp}. */
    public static final long HANDLE_OFFSET = offset(LAYOUT, "handle");
    /** Byte offset of {@code qp_num} in {@code struct ibv_qp}. */
    public static final long QP_NUM_OFFSET = offset(LAYOUT, "qp_num");
    /** Byte offset of {@code state} in {@code struct ibv_qp}. */
    public static final long STATE_OFFSET = offset(LAYOUT, "state");
    /** Byte offset of {@code qp_type} in {@code struct ibv_qp}. */
    public static final long QP_TYPE_OFFSET = offset(LAYOUT, "qp_type");
    /** Byte offset of {@code events_completed} in {@code struct ibv_qp}. */
    public static final long EVENTS_COMPLETED_OFFSET = offset(LAYOUT, "events_completed");

    private IbvQp()
    {
    }
}
