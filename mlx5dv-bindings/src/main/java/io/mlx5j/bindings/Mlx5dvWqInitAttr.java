// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_wq_init_attr} (mlx5dv.h, rdma-core 44): with MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ,
 * mlx5dv_create_wq makes a striding ("multi-packet") RQ of 2^single_wqe_log_num_of_strides strides of
 * 2^single_stride_log_num_of_bytes per WQE.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvWqInitAttr
{
    /** {@code MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ = 1 << 0;

    /** Memory layout of {@code struct mlx5dv_wq_init_attr} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("comp_mask"),
        Mlx5dvStridingRqInitAttr.LAYOUT.withName("striding_rq_attrs"),
        pad(4)).withName("mlx5dv_wq_init_attr");

    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_wq_init_attr}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code striding_rq_attrs} in {@code struct mlx5dv_wq_init_attr}. */
    public static final long STRIDING_RQ_ATTRS_OFFSET = offset(LAYOUT, "striding_rq_attrs");

    private Mlx5dvWqInitAttr()
    {
    }
}
