// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5_ib_clock_info} (rdma/mlx5-abi.h, Linux uapi as shipped with rdma-core 44): the read-only page
 * the kernel maps at mmap offset {@code MLX5_IB_MMAP_CLOCK_INFO} of the device fd and rewrites as the clock is
 * adjusted. {@code sign} is a sequence counter: bit 0 ({@link #MLX5_IB_CLOCK_INFO_KERNEL_UPDATING}) is set while the
 * kernel writes; a reader retries while it is set or while it changed across the read (libmlx5
 * _mlx5dv_get_clock_info, providers/mlx5/mlx5.c).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5IbClockInfo
{
    /** enum in rdma/mlx5-abi.h. */
    public static final int MLX5_IB_CLOCK_INFO_KERNEL_UPDATING = 1;
    /** mmap command (rdma/mlx5-abi.h enum mlx5_ib_mmap_cmd) and the V1 page index libmlx5 maps. */
    public static final int MLX5_IB_MMAP_CLOCK_INFO = 7;
    /** {@code MLX5_IB_CLOCK_INFO_V1} ({@code rdma/mlx5-abi.h}). */
    public static final int MLX5_IB_CLOCK_INFO_V1 = 0;

    /** Memory layout of {@code struct mlx5_ib_clock_info} (rdma/mlx5-abi.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("sign"),
        U32.withName("resv"),
        U64.withName("nsec"),
        U64.withName("cycles"),
        U64.withName("frac"),
        U32.withName("mult"),
        U32.withName("shift"),
        U64.withName("mask"),
        U64.withName("overflow_period")).withName("mlx5_ib_clock_info");

    /** Byte offset of {@code sign} in {@code struct mlx5_ib_clock_info}. */
    public static final long SIGN_OFFSET = offset(LAYOUT, "sign");
    /** Byte offset of {@code nsec} in {@code struct mlx5_ib_clock_info}. */
    public static final long NSEC_OFFSET = offset(LAYOUT, "nsec");
    /** Byte offset of {@code cycles} in {@code struct mlx5_ib_clock_info}. */
    public static final long CYCLES_OFFSET = offset(LAYOUT, "cycles");
    /** Byte offset of {@code frac} in {@code struct mlx5_ib_clock_info}. */
    public static final long FRAC_OFFSET = offset(LAYOUT, "frac");
    /** Byte offset of {@code mult} in {@code struct mlx5_ib_clock_info}. */
    public static final long MULT_OFFSET = offset(LAYOUT, "mult");
    /** Byte offset of {@code shift} in {@code struct mlx5_ib_clock_info}. */
    public static final long SHIFT_OFFSET = offset(LAYOUT, "shift");
    /** Byte offset of {@code mask} in {@code struct mlx5_ib_clock_info}. */
    public static final long MASK_OFFSET = offset(LAYOUT, "mask");

    private Mlx5IbClockInfo()
    {
    }
}
