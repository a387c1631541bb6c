// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_tm_cap} (verbs.h, rdma-core 44): the tag-matching sizes inside ibv_srq_init_attr_ex (unused by
 * mlx5j, which creates no tag-matching SRQs; laid out so the struct around it is exact).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvTmCap
{
    /** Memory layout of {@code struct ibv_tm_cap} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("max_num_tags"),
        U32.withName("max_ops")).withName("ibv_tm_cap");

    /** Byte offset of {@code max_num_tags} in {@code struct ibv_tm_cap}. */
    public static final long MAX_NUM_TAGS_OFFSET = offset(LAYOUT, "max_num_tags");

    private IbvTmCap()
    {
    }
}
