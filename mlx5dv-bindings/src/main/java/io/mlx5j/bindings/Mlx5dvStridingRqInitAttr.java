// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_striding_rq_init_attr} (mlx5dv.h, rdma-core 44).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvStridingRqInitAttr
{
    /** Memory layout of {@code struct mlx5dv_striding_rq_init_attr} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("single_stride_log_num_of_bytes"),
        U32.withName("single_wqe_log_num_of_strides"),
        U8.withName("two_byte_shift_en"),
        pad(3)).withName("mlx5dv_striding_rq_init_attr");

    /** Byte offset of {@code single_stride_log_num_of_bytes} in {@code struct mlx5dv_striding_rq_init_attr}. */
    public static final long SINGLE_STRIDE_LOG_NUM_OF_BYTES_OFFSET = offset(LAYOUT, "single_stride_log_num_of_bytes");
    /** Byte offset of {@code single_wqe_log_num_of_strides} in {@code struct mlx5dv_striding_rq_init_attr}. */
    public static final long SINGLE_WQE_LOG_NUM_OF_STRIDES_OFFSET = offset(LAYOUT, "single_wqe_log_num_of_strides");
    /** Byte offset of {@code two_byte_shift_en} in {@code struct mlx5dv_striding_rq_init_attr}. */
    public static final long TWO_BYTE_SHIFT_EN_OFFSET = offset(LAYOUT, "two_byte_shift_en");

    private Mlx5dvStridingRqInitAttr()
    {
    }
}
