// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_clock_info} (mlx5dv.h, rdma-core 44): the snapshot mlx5dv_get_clock_info copies out of the
 * clock-info page; mlx5dv_ts_to_ns turns a CQE timestamp into nanoseconds with it.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvClockInfo
{
    /** Memory layout of {@code struct mlx5dv_clock_info} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("nsec"),
        U64.withName("last_cycles"),
        U64.withName("frac"),
        U32.withName("mult"),
        U32.withName("shift"),
        U64.withName("mask")).withName("mlx5dv_clock_info");

    /** Byte offset of {@code nsec} in {@code struct mlx5dv_clock_info}. */
    public static final long NSEC_OFFSET = offset(LAYOUT, "nsec");
    /** Byte offset of {@code last_cycles} in {@code struct mlx5dv_clock_info}. */
    public static final long LAST_CYCLES_OFFSET = offset(LAYOUT, "last_cycles");
    /** Byte offset of {@code frac} in {@code struct mlx5dv_clock_info}. */
    public static final long FRAC_OFFSET = offset(LAYOUT, "frac");
    /** Byte offset of {@code mult} in {@code struct mlx5dv_clock_info}. */
    public static final long MULT_OFFSET = offset(LAYOUT, "mult");
    /** Byte offset of {@code shift} in {@code struct mlx5dv_clock_info}. */
    public static final long SHIFT_OFFSET = offset(LAYOUT, "shift");
    /** Byte offset of {@code mask} in {@code struct mlx5dv_clock_info}. */
    public static final long MASK_OFFSET = offset(LAYOUT, "mask");

    private Mlx5dvClockInfo()
    {
    }
}
