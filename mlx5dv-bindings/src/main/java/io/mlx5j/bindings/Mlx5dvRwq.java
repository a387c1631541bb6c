// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_rwq} (mlx5dv.h, rdma-core 44): a receive WQ's ring ({@code wqe_cnt} WQEs of {@code stride}
 * bytes) and its doorbell record ({@code dbrec[0]}: the receive counter, big-endian), from mlx5dv_init_obj with
 * MLX5DV_OBJ_RWQ.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvRwq
{
    /** Memory layout of {@code struct mlx5dv_rwq} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("buf"),
        C_POINTER.withName("dbrec"),
        U32.withName("wqe_cnt"),
        U32.withName("stride"),
        U64.withName("comp_mask")).withName("mlx5dv_rwq");

    /** Byte offset of {@code buf} in {@code struct mlx5dv_rwq}. */
    public static final long BUF_OFFSET = offset(LAYOUT, "buf");
    /** Byte offset of {@code dbrec} in {@code struct mlx5dv_rwq}. */
    public static final long DBREC_OFFSET = offset(LAYOUT, "dbrec");
    /** Byte offset of {@code wqe_cnt} in {@code struct mlx5dv_rwq}. */
    public static final long WQE_CNT_OFFSET = offset(LAYOUT, "wqe_cnt");
    /** Byte offset of {@code stride} in {@code struct mlx5dv_rwq}. */
    public static final long STRIDE_OFFSET = offset(LAYOUT, "stride");

    private Mlx5dvRwq()
    {
    }
}
