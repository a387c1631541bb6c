// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_srq_attr} (verbs.h, rdma-core 44).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvSrqAttr
{
    /** enum ibv_srq_attr_mask (ibv_modify_srq). */
    public static final int IBV_SRQ_MAX_WR = 1 << 0;
    /** {@code IBV_SRQ_LIMIT} ({@code infiniband/verbs.h}). */
    public static final int IBV_SRQ_LIMIT = 1 << 1;

    /** Memory layout of {@code struct ibv_srq_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("max_wr"),
        U32.withName("max_sge"),
        U32.withName("srq_limit")).withName("ibv_srq_attr");

    /** Byte offset of {@code max_wr} in {@code struct ibv_srq_attr}. */
    public static final long MAX_WR_OFFSET = offset(LAYOUT, "max_wr");
    /** Byte offset of {@code max_sge} in {@code struct ibv_srq_attr}. */
    public static final long MAX_SGE_OFFSET = offset(LAYOUT, "max_sge");
    /** Byte offset of {@code srq_limit} in {@code struct ibv_srq_attr}. */
    public static final long SRQ_LIMIT_OFFSET = offset(LAYOUT, "srq_limit");

    private IbvSrqAttr()
    {
    }
}
