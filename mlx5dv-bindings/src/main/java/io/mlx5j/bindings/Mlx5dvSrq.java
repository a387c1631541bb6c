// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_srq} (mlx5dv.h, rdma-core 44): {@code head}/{@code tail} are WQE indexes of the free list
 * linked through each WQE's mlx5_wqe_srq_next_seg; the ring holds {@code tail + 1} WQEs of {@code stride} bytes.
 * {@code srqn} is valid when MLX5DV_SRQ_MASK_SRQN is set in {@code comp_mask} on input.
 */
public final class Mlx5dvSrq
{
    public static final long MLX5DV_SRQ_MASK_SRQN = 1 << 0;

    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("buf"),
        C_POINTER.withName("dbrec"),
        U32.withName("stride"),
        U32.withName("head"),
        U32.withName("tail"),
        pad(4),
        U64.withName("comp_mask"),
        U32.withName("srqn"),
        pad(4)).withName("mlx5dv_srq");

    public static final long BUF_OFFSET = offset(LAYOUT, "buf");
    public static final long DBREC_OFFSET = offset(LAYOUT, "dbrec");
    public static final long STRIDE_OFFSET = offset(LAYOUT, "stride");
    public static final long HEAD_OFFSET = offset(LAYOUT, "head");
    public static final long TAIL_OFFSET = offset(LAYOUT, "tail");
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    public static final long SRQN_OFFSET = offset(LAYOUT, "srqn");

    private Mlx5dvSrq()
    {
    }
}
