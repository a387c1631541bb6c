// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_wq} (verbs.h, rdma-core 44): a receive work queue, the unit an RSS indirection table spreads
 * frames over. {@code post_recv} is the provider's ibv_post_wq_recv (libmlx5 mlx5_post_wq_recv).
 */
public final class IbvWq
{
    /** enum ibv_wq_type */
    public static final int IBV_WQT_RQ = 0;
    /** enum ibv_wq_state */
    public static final int IBV_WQS_RESET = 0;
    /** {@code IBV_WQS_RDY} ({@code infiniband/verbs.h}). */
    public static final int IBV_WQS_RDY = 1;
    /** {@code IBV_WQS_ERR} ({@code infiniband/verbs.h}). */
    public static final int IBV_WQS_ERR = 2;

    /** Memory layout of {@code struct ibv_wq} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("wq_context"),
        C_POINTER.withName("pd"),
        C_POINTER.withName("cq"),
        U32.withName("wq_num"),
        U32.withName("handle"),
        C_INT.withName("state"),
        C_INT.withName("wq_type"),
        C_POINTER.withName("post_recv"),
        PTHREAD_MUTEX_T.withName("mutex"),
        PTHREAD_COND_T.withName("cond"),
        U32.withName("events_completed"),
        U32.withName("comp_mask")).withName("ibv_wq");

    /** Byte offset of {@code context} in {@code struct ibv_wq}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code wq_num} in {@code struct ibv_wq}. */
    public static final long WQ_NUM_OFFSET = offset(LAYOUT, "wq_num");
    /** Byte offset of {@code state} in {@code struct ibv_wq}. */
    public static final long STATE_OFFSET = offset(LAYOUT, "state");
    /** Byte offset of {@code post_recv} in {@code struct ibv_wq}. */
    public static final long POST_RECV_OFFSET = offset(LAYOUT, "post_recv");

    private IbvWq()
    {
    }
}
