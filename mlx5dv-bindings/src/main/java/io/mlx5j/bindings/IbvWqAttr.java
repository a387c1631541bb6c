// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_wq_attr} (verbs.h, rdma-core 44): what ibv_modify_wq changes.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvWqAttr
{
    /** enum ibv_wq_attr_mask */
    public static final int IBV_WQ_ATTR_STATE = 1 << 0;
    /** {@code IBV_WQ_ATTR_CURR_STATE} ({@code infiniband/verbs.h}). */
    public static final int IBV_WQ_ATTR_CURR_STATE = 1 << 1;

    /** Memory layout of {@code struct ibv_wq_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("attr_mask"),
        C_INT.withName("wq_state"),
        C_INT.withName("curr_wq_state"),
        U32.withName("flags"),
        U32.withName("flags_mask")).withName("ibv_wq_attr");

    /** Byte offset of {@code attr_mask} in {@code struct ibv_wq_attr}. */
    public static final long ATTR_MASK_OFFSET = offset(LAYOUT, "attr_mask");
    /** Byte offset of {@code wq_state} in {@code struct ibv_wq_attr}. */
    public static final long WQ_STATE_OFFSET = offset(LAYOUT, "wq_state");

    private IbvWqAttr()
    {
    }
}
