// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_ah} (mlx5dv.h, rdma-core 44): {@code av} points to the 48-byte {@code struct mlx5_wqe_av}
 * libmlx5 built for the address handle, which a UD send copies into its datagram segment.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvAh
{
    /** Memory layout of {@code struct mlx5dv_ah} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("av"),
        U64.withName("comp_mask")).withName("mlx5dv_ah");

    /** Byte offset of {@code av} in {@code struct mlx5dv_ah}. */
    public static final long AV_OFFSET = offset(LAYOUT, "av");
    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_ah}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");

    private Mlx5dvAh()
    {
    }
}
