// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_srq} (verbs.h, rdma-core 44). */
public final class IbvSrq
{
    /** Memory layout of {@code struct ibv_srq} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("srq_context"),
        C_POINTER.withName("pd"),
        U32.withName("handle"),
        pad(4),
        PTHREAD_MUTEX_T.withName("mutex"),
        PTHREAD_COND_T.withName("cond"),
        U32.withName("events_completed"),
        pad(4)).withName("ibv_srq");

    /** Byte offset of {@code context} in {@code struct ibv_srq}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code srq_context} in {@code struct ibv_srq}. */
    public static final long SRQ_CONTEXT_OFFSET = offset(LAYOUT, "srq_context");
    /** Byte offset of {@code pd} in {@code struct ibv_srq}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code handle} in {@code struct ibv_srq}. */
    public static final long HANDLE_OFFSET = offset(LAYOUT, "handle");

    private IbvSrq()
    {
    }
}
