// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_pd} (mlx5dv.h, rdma-core 44): the PD number the device knows the PD by.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvPd
{
    /** Memory layout of {@code struct mlx5dv_pd} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("pdn"),
        pad(4),
        U64.withName("comp_mask")).withName("mlx5dv_pd");

    /** Byte offset of {@code pdn} in {@code struct mlx5dv_pd}. */
    public static final long PDN_OFFSET = offset(LAYOUT, "pdn");
    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_pd}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");

    private Mlx5dvPd()
    {
    }
}
