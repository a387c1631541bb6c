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
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvSrq
{
    /** {@code MLX5DV_SRQ_MASK_SRQN} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_SRQ_MASK_SRQN = 1 << 0;

    /** Memory layout of {@code struct mlx5dv_srq} (mlx5dv.h). */
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

    /** Byte offset of {@code buf} in {@code struct mlx5dv_srq}. */
    public static final long BUF_OFFSET = offset(LAYOUT, "buf");
    /** Byte offset of {@code dbrec} in {@code struct mlx5dv_srq}. */
    public static final long DBREC_OFFSET = offset(LAYOUT, "dbrec");
    /** Byte offset of {@code stride} in {@code struct mlx5dv_srq}. */
    public static final long STRIDE_OFFSET = offset(LAYOUT, "stride");
    /** Byte offset of {@code head} in {@code struct mlx5dv_srq}. */
    public static final long HEAD_OFFSET = offset(LAYOUT, "head");
    /** Byte offset of {@code tail} in {@code struct mlx5dv_srq}. */
    public static final long TAIL_OFFSET = offset(LAYOUT, "tail");
    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_srq}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code srqn} in {@code struct mlx5dv_srq}. */
    public static final long SRQN_OFFSET = offset(LAYOUT, "srqn");

    private Mlx5dvSrq()
    {
    }
}
