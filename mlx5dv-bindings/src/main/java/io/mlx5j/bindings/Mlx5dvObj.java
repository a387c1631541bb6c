// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_obj} (mlx5dv.h, rdma-core 44): in/out pairs for mlx5dv_init_obj; which pairs are read is said
 * by the {@code obj_type} bit mask (MLX5DV_OBJ_QP, _CQ, _SRQ ...).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvObj
{
    /** {@code MLX5DV_OBJ_QP} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_OBJ_QP = 1 << 0;
    /** {@code MLX5DV_OBJ_CQ} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_OBJ_CQ = 1 << 1;
    /** {@code MLX5DV_OBJ_SRQ} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_OBJ_SRQ = 1 << 2;
    /** {@code MLX5DV_OBJ_RWQ} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_OBJ_RWQ = 1 << 3;
    /** {@code MLX5DV_OBJ_DM} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_OBJ_DM = 1 << 4;
    /** {@code MLX5DV_OBJ_AH} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_OBJ_AH = 1 << 5;
    /** {@code MLX5DV_OBJ_PD} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_OBJ_PD = 1 << 6;

    /** Memory layout of {@code struct mlx5dv_obj} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        pair("qp"), pair("cq"), pair("srq"), pair("rwq"), pair("dm"), pair("ah"), pair("pd")).withName("mlx5dv_obj");

    /** Byte offset of {@code qp.in} in {@code struct mlx5dv_obj}. */
    public static final long QP_IN_OFFSET = offset(LAYOUT, "qp", "in");
    /** Byte offset of {@code qp.out} in {@code struct mlx5dv_obj}. */
    public static final long QP_OUT_OFFSET = offset(LAYOUT, "qp", "out");
    /** Byte offset of {@code cq.in} in {@code struct mlx5dv_obj}. */
    public static final long CQ_IN_OFFSET = offset(LAYOUT, "cq", "in");
    /** Byte offset of {@code cq.out} in {@code struct mlx5dv_obj}. */
    public static final long CQ_OUT_OFFSET = offset(LAYOUT, "cq", "out");
    /** Byte offset of {@code srq.in} in {@code struct mlx5dv_obj}. */
    public static final long SRQ_IN_OFFSET = offset(LAYOUT, "srq", "in");
    /** Byte offset of {@code srq.out} in {@code struct mlx5dv_obj}. */
    public static final long SRQ_OUT_OFFSET = offset(LAYOUT, "srq", "out");
    /** Byte offset of {@code rwq.in} in {@code struct mlx5dv_obj}. */
    public static final long RWQ_IN_OFFSET = offset(LAYOUT, "rwq", "in");
    /** Byte offset of {@code rwq.out} in {@code struct mlx5dv_obj}. */
    public static final long RWQ_OUT_OFFSET = offset(LAYOUT, "rwq", "out");
    /** Byte offset of {@code ah.in} in {@code struct mlx5dv_obj}. */
    public static final long AH_IN_OFFSET = offset(LAYOUT, "ah", "in");
    /** Byte offset of {@code ah.out} in {@code struct mlx5dv_obj}. */
    public static final long AH_OUT_OFFSET = offset(LAYOUT, "ah", "out");
    /** Byte offset of {@code pd.in} in {@code struct mlx5dv_obj}. */
    public static final long PD_IN_OFFSET = offset(LAYOUT, "pd", "in");
    /** Byte offset of {@code pd.out} in {@code struct mlx5dv_obj}. */
    public static final long PD_OUT_OFFSET = offset(LAYOUT, "pd", "out");

    private Mlx5dvObj()
    {
    }

    private static GroupLayout pair(final String name)
    {
        return structLayout(C_POINTER.withName("in"), C_POINTER.withName("out")).withName(name);
    }
}
