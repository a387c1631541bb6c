// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow} (verbs.h, rdma-core 44): what ibv_create_flow returns; its context finds destroy_flow.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlow
{
    /** Memory layout of {@code struct ibv_flow} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("comp_mask"),
        pad(4),
        C_POINTER.withName("context"),
        U32.withName("handle"),
        pad(4)).withName("ibv_flow");

    /** Byte offset of {@code context} in {@code struct ibv_flow}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code handle} in {@code struct ibv_flow}. */
    public static final long HANDLE_OFFSET = offset(LAYOUT, "handle");

    private IbvFlow()
    {
    }
}
