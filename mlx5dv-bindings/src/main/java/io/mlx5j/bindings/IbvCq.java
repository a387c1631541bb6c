// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_cq} (verbs.h, rdma-core 44). {@code cqe} is the depth actually granted (may exceed the request).
 */
public final class IbvCq
{
    /** Memory layout of {@code struct ibv_cq} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("channel"),
        C_POINTER.withName("cq_context"),
        U32.withName("handle"),
        C_INT.withName("cqe"),
        PTHREAD_MUTEX_T.withName("mutex"),
        PTHREAD_COND_T.withName("cond"),
        U32.withName("comp_events_completed"),
        U32.withName("async_events_completed")).withName("ibv_cq");

    /** Byte offset of {@code context} in {@code struct ibv_cq}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code channel} in {@code struct ibv_cq}. */
    public static final long CHANNEL_OFFSET = offset(LAYOUT, "channel");
    /** Byte offset of {@code cq_context} in {@code struct ibv_cq}. */
    public static final long CQ_CONTEXT_OFFSET = offset(LAYOUT, "cq_context");
    /** Byte offset of {@code handle} in {@code struct ibv_cq}. */
    public static final long HANDLE_OFFSET = offset(LAYOUT, "handle");
    /** Byte offset of {@code cqe} in {@code struct ibv_cq}. */
    public static final long CQE_OFFSET = offset(LAYOUT, "cqe");
    /** Byte offset of {@code comp_events_completed} in {@code struct ibv_cq}. */
    public static final long COMP_EVENTS_COMPLETED_OFFSET = offset(LAYOUT, "comp_events_completed");
    /** Byte offset of {@code async_events_completed} in {@code struct ibv_cq}. */
    public static final long ASYNC_EVENTS_COMPLETED_OFFSET = offset(LAYOUT, "async_events_completed");

    private IbvCq()
    {
    }
}
