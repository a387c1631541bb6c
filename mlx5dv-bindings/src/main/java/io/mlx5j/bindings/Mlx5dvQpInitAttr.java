// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_qp_init_attr} (mlx5dv.h, rdma-core 44): mlx5dv_create_qp's provider attributes; with
 * MLX5DV_QP_INIT_ATTR_MASK_DC and an IBV_QPT_DRIVER ibv_qp_init_attr_ex it makes a DCI or a DCT.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvQpInitAttr
{
    /** {@code MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS = 1 << 0;
    /** {@code MLX5DV_QP_INIT_ATTR_MASK_DC} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_QP_INIT_ATTR_MASK_DC = 1 << 1;
    /** {@code MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS = 1 << 2;
    /** {@code MLX5DV_QP_EX_WITH_MR_INTERLEAVED} ({@code enum mlx5dv_qp_create_send_ops_flags}). */
    public static final long MLX5DV_QP_EX_WITH_MR_INTERLEAVED = 1 << 0;

    /** Memory layout of {@code struct mlx5dv_qp_init_attr} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("comp_mask"),
        U32.withName("create_flags"),
        pad(4),
        Mlx5dvDcInitAttr.LAYOUT.withName("dc_init_attr"),
        U64.withName("send_ops_flags")).withName("mlx5dv_qp_init_attr");

    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_qp_init_attr}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code create_flags} in {@code struct mlx5dv_qp_init_attr}. */
    public static final long CREATE_FLAGS_OFFSET = offset(LAYOUT, "create_flags");
    /** Byte offset of {@code dc_init_attr} in {@code struct mlx5dv_qp_init_attr}. */
    public static final long DC_INIT_ATTR_OFFSET = offset(LAYOUT, "dc_init_attr");
    /** Byte offset of {@code send_ops_flags} in {@code struct mlx5dv_qp_init_attr}. */
    public static final long SEND_OPS_FLAGS_OFFSET = offset(LAYOUT, "send_ops_flags");

    private Mlx5dvQpInitAttr()
    {
    }
}
