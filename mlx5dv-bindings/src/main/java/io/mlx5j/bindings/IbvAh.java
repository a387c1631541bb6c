// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_ah} (verbs.h, rdma-core 44).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvAh
{
    /** Memory layout of {@code struct ibv_ah} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("pd"),
        U32.withName("handle"),
        pad(4)).withName("ibv_ah");

    /** Byte offset of {@code context} in {@code struct ibv_ah}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code pd} in {@code struct ibv_ah}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code handle} in {@code struct ibv_ah}. */
    public static final long HANDLE_OFFSET = offset(LAYOUT, "handle");

    private IbvAh()
    {
    }
}
