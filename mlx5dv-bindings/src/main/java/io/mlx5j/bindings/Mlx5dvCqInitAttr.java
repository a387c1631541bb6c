// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_cq_init_attr} (mlx5dv.h, rdma-core 44): mlx5-specific input of mlx5dv_create_cq; mlx5j uses
 * {@code cqe_size} (64 or 128) with MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE, and {@code cqe_comp_res_format} (one
 * {@code enum mlx5dv_cqe_comp_res_format} value) with MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvCqInitAttr
{
    /** {@code MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE = 1 << 0;
    /** {@code MLX5DV_CQ_INIT_ATTR_MASK_FLAGS} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_CQ_INIT_ATTR_MASK_FLAGS = 1 << 1;
    /** {@code MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE = 1 << 2;
    /** enum mlx5dv_cqe_comp_res_format: mini-CQEs carry the RSS hash. */
    public static final int MLX5DV_CQE_RES_FORMAT_HASH = 1 << 0;
    /** enum mlx5dv_cqe_comp_res_format: mini-CQEs carry the receive checksum. */
    public static final int MLX5DV_CQE_RES_FORMAT_CSUM = 1 << 1;
    /** enum mlx5dv_cqe_comp_res_format: mini-CQEs carry the checksum and the striding RQ stride index. */
    public static final int MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX = 1 << 2;

    /** Memory layout of {@code struct mlx5dv_cq_init_attr} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("comp_mask"),
        U8.withName("cqe_comp_res_format"),
        pad(3),
        U32.withName("flags"),
        U16.withName("cqe_size"),
        pad(6)).withName("mlx5dv_cq_init_attr");

    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_cq_init_attr}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code cqe_comp_res_format} in {@code struct mlx5dv_cq_init_attr}. */
    public static final long CQE_COMP_RES_FORMAT_OFFSET = offset(LAYOUT, "cqe_comp_res_format");
    /** Byte offset of {@code flags} in {@code struct mlx5dv_cq_init_attr}. */
    public static final long FLAGS_OFFSET = offset(LAYOUT, "flags");
    /** Byte offset of {@code cqe_size} in {@code struct mlx5dv_cq_init_attr}. */
    public static final long CQE_SIZE_OFFSET = offset(LAYOUT, "cqe_size");

    private Mlx5dvCqInitAttr()
    {
    }
}
