// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct mlx5dv_dc_init_attr} (mlx5dv.h, rdma-core 44): the DC half of mlx5dv_create_qp's attributes, a DC
 * initiator (MLX5DV_DCTYPE_DCI) or target (MLX5DV_DCTYPE_DCT, with the DC access key initiators must present).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvDcInitAttr
{
    /** {@code MLX5DV_DCTYPE_DCT} ({@code enum mlx5dv_dc_type}, {@code infiniband/mlx5dv.h}). */
    public static final int MLX5DV_DCTYPE_DCT = 1;
    /** {@code MLX5DV_DCTYPE_DCI} ({@code enum mlx5dv_dc_type}, {@code infiniband/mlx5dv.h}). */
    public static final int MLX5DV_DCTYPE_DCI = 2;

    /** Memory layout of {@code struct mlx5dv_dc_init_attr} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("dc_type"),
        pad(4),
        unionLayout(
            U64.withName("dct_access_key"),
            structLayout(
                U8.withName("log_num_concurent"),
                U8.withName("log_num_errored")).withName("dci_streams")).withName(Layouts.ANON + "0"))
        .withName("mlx5dv_dc_init_attr");

    /** Byte offset of {@code dc_type} in {@code struct mlx5dv_dc_init_attr}. */
    public static final long DC_TYPE_OFFSET = offset(LAYOUT, "dc_type");
    /** Byte offset of {@code dct_access_key} in {@code struct mlx5dv_dc_init_attr}. */
    public static final long DCT_ACCESS_KEY_OFFSET = offset(LAYOUT, "dct_access_key");

    private Mlx5dvDcInitAttr()
    {
    }
}
