package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct mlx5_wqe_inl_data_seg} (mlx5dv.h, rdma-core 44): the header types {@code byte_count} as uint32_t,
 * but libmlx5 stores {@code htobe32(len | MLX5_INLINE_SEG)} there (providers/mlx5/qp.c), so it is big-endian here.
 */
public final class Mlx5WqeInlDataSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE32.withName("byte_count")).withName("mlx5_wqe_inl_data_seg");

    public static final long BYTE_COUNT_OFFSET = offset(LAYOUT, "byte_count");

    private Mlx5WqeInlDataSeg()
    {
    }
}
