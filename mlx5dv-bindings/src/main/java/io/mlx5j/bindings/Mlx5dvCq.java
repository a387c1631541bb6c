// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_cq} (mlx5dv.h, rdma-core 44): {@code buf} holds {@code cqe_cnt * cqe_size} bytes;
 * {@code dbrec} is [MLX5_CQ_SET_CI=0] consumer index and [MLX5_CQ_ARM_DB=1] arm word; {@code cq_uar} is the UAR page
 * whose MLX5_CQ_DOORBELL (0x20) offset takes the 64-bit arm doorbell.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvCq
{
    /** Index of the consumer-index word in the CQ's doorbell record (rdma-core providers/mlx5/mlx5.h). */
    public static final int MLX5_CQ_SET_CI = 0;
    /** Index of the arm word in the CQ's doorbell record (rdma-core providers/mlx5/mlx5.h). */
    public static final int MLX5_CQ_ARM_DB = 1;
    /** {@code MLX5_CQ_DOORBELL} ({@code infiniband/mlx5dv.h}). */
    public static final int MLX5_CQ_DOORBELL = 0x20;

    /** Memory layout of {@code struct mlx5dv_cq} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("buf"),
        C_POINTER.withName("dbrec"),
        U32.withName("cqe_cnt"),
        U32.withName("cqe_size"),
        C_POINTER.withName("cq_uar"),
        U32.withName("cqn"),
        pad(4),
        U64.withName("comp_mask")).withName("mlx5dv_cq");

    /** Byte offset of {@code buf} in {@code struct mlx5dv_cq}. */
    public static final long BUF_OFFSET = offset(LAYOUT, "buf");
    /** Byte offset of {@code dbrec} in {@code struct mlx5dv_cq}. */
    public static final long DBREC_OFFSET = offset(LAYOUT, "dbrec");
    /** Byte offset of {@code cqe_cnt} in {@code struct mlx5dv_cq}. */
    public static final long CQE_CNT_OFFSET = offset(LAYOUT, "cqe_cnt");
    /** Byte offset of {@code cqe_size} in {@code struct mlx5dv_cq}. */
    public static final long CQE_SIZE_OFFSET = offset(LAYOUT, "cqe_size");
    /** Byte offset of {@code cq_uar} in {@code struct mlx5dv_cq}. */
    public static final long CQ_UAR_OFFSET = offset(LAYOUT, "cq_uar");
    /** Byte offset of {@code cqn} in {@code struct mlx5dv_cq}. */
    public static final long CQN_OFFSET = offset(LAYOUT, "cqn");
    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_cq}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");

    private Mlx5dvCq()
    {
    }
}
