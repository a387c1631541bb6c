// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_obj} (mlx5dv.h, rdma-core 44): in/out pairs for mlx5dv_init_obj; which pairs are read is said
 * by the {@code obj_type} bit mask (MLX5DV_OBJ_QP, _CQ, _SRQ ...).
 */
public final class Mlx5dvObj
{
    public static final long MLX5DV_OBJ_QP = 1 << 0;
    public static final long MLX5DV_OBJ_CQ = 1 << 1;
    public static final long MLX5DV_OBJ_SRQ = 1 << 2;
    public static final long MLX5DV_OBJ_RWQ = 1 << 3;
    public static final long MLX5DV_OBJ_DM = 1 << 4;
    public static final long MLX5DV_OBJ_AH = 1 << 5;
    public static final long MLX5DV_OBJ_PD = 1 << 6;

    public static final GroupLayout LAYOUT = structLayout(
        pair("qp"), pair("cq"), pair("srq"), pair("rwq"), pair("dm"), pair("ah"), pair("pd")).withName("mlx5dv_obj");

    public static final long QP_IN_OFFSET = offset(LAYOUT, "qp", "in");
    public static final long QP_OUT_OFFSET = offset(LAYOUT, "qp", "out");
    public static final long CQ_IN_OFFSET = offset(LAYOUT, "cq", "in");
    public static final long CQ_OUT_OFFSET = offset(LAYOUT, "cq", "out");
    public static final long SRQ_IN_OFFSET = offset(LAYOUT, "srq", "in");
    public static final long SRQ_OUT_OFFSET = offset(LAYOUT, "srq", "out");
    public static final long RWQ_IN_OFFSET = offset(LAYOUT, "rwq", "in");
    public static final long RWQ_OUT_OFFSET = offset(LAYOUT, "rwq", "out");
    public static final long AH_IN_OFFSET = offset(LAYOUT, "ah", "in");
    public static final long AH_OUT_OFFSET = offset(LAYOUT, "ah", "out");
    public static final long PD_IN_OFFSET = offset(LAYOUT, "pd", "in");
    public static final long PD_OUT_OFFSET = offset(LAYOUT, "pd", "out");

    private Mlx5dvObj()
    {
    }

    private static GroupLayout pair(final String name)
    {
        return structLayout(C_POINTER.withName("in"), C_POINTER.withName("out")).withName(name);
    }
}
