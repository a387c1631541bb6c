// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_comp_channel} (verbs.h, rdma-core 44): {@code fd} is what a poller waits on.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvCompChannel
{
    /** Memory layout of {@code struct ibv_comp_channel} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_INT.withName("fd"),
        C_INT.withName("refcnt")).withName("ibv_comp_channel");

    /** Byte offset of {@code context} in {@code struct ibv_comp_channel}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code fd} in {@code struct ibv_comp_channel}. */
    public static final long FD_OFFSET = offset(LAYOUT, "fd");
    /** Byte offset of {@code refcnt} in {@code struct ibv_comp_channel}. */
    public static final long REFCNT_OFFSET = offset(LAYOUT, "refcnt");

    private IbvCompChannel()
    {
    }
}
