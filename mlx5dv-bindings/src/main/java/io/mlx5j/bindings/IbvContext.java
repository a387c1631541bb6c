// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_context} (verbs.h, rdma-core 44). The ops table is embedded, not pointed to. */
public final class IbvContext
{
    /** Memory layout of {@code struct ibv_context} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("device"),
        IbvContextOps.LAYOUT.withName("ops"),
        C_INT.withName("cmd_fd"),
        C_INT.withName("async_fd"),
        C_INT.withName("num_comp_vectors"),
        pad(4),
        PTHREAD_MUTEX_T.withName("mutex"),
        C_POINTER.withName("abi_compat")).withName("ibv_context");

    /** Byte offset of {@code device} in {@code struct ibv_context}. */
    public static final long DEVICE_OFFSET = offset(LAYOUT, "device");
    /** Byte offset of {@code ops} in {@code struct ibv_context}. */
    public static final long OPS_OFFSET = offset(LAYOUT, "ops");
    /** Byte offset of {@code cmd_fd} in {@code struct ibv_context}. */
    public static final long CMD_FD_OFFSET = offset(LAYOUT, "cmd_fd");
    /** Byte offset of {@code async_fd} in {@code struct ibv_context}. */
    public static final long ASYNC_FD_OFFSET = offset(LAYOUT, "async_fd");
    /** Byte offset of {@code num_comp_vectors} in {@code struct ibv_context}. */
    public static final long NUM_COMP_VECTORS_OFFSET = offset(LAYOUT, "num_comp_vectors");
    /** Byte offset of {@code abi_compat} in {@code struct ibv_context}. */
    public static final long ABI_COMPAT_OFFSET = offset(LAYOUT, "abi_compat");

    private IbvContext()
    {
    }
}
