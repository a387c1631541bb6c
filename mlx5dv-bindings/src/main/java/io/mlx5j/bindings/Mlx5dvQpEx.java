// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_qp_ex} (mlx5dv.h, rdma-core 44): the mlx5 work request setters next to an ibv_qp_ex
 * (mlx5dv_qp_ex_from_ibv_qp_ex); mlx5j calls {@code wr_set_dc_addr} only, the libmlx5 side of the DC parity tests.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvQpEx
{
    /** Memory layout of {@code struct mlx5dv_qp_ex} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("comp_mask"),
        C_POINTER.withName("wr_set_dc_addr"),
        C_POINTER.withName("wr_mr_interleaved"),
        C_POINTER.withName("wr_mr_list"),
        C_POINTER.withName("wr_mkey_configure"),
        C_POINTER.withName("wr_set_mkey_access_flags"),
        C_POINTER.withName("wr_set_mkey_layout_list"),
        C_POINTER.withName("wr_set_mkey_layout_interleaved"),
        C_POINTER.withName("wr_set_mkey_sig_block"),
        C_POINTER.withName("wr_raw_wqe"),
        C_POINTER.withName("wr_set_dc_addr_stream"),
        C_POINTER.withName("wr_memcpy"),
        C_POINTER.withName("wr_set_mkey_crypto")).withName("mlx5dv_qp_ex");

    /** Byte offset of {@code wr_set_dc_addr} in {@code struct mlx5dv_qp_ex}. */
    public static final long WR_SET_DC_ADDR_OFFSET = offset(LAYOUT, "wr_set_dc_addr");

    private Mlx5dvQpEx()
    {
    }
}
