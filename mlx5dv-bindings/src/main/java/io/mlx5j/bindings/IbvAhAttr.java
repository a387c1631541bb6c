// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_ah_attr} (verbs.h, rdma-core 44): destination for ibv_create_ah and the RTR path in ibv_qp_attr.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvAhAttr
{
    /** Memory layout of {@code struct ibv_ah_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        IbvGlobalRoute.LAYOUT.withName("grh"),
        U16.withName("dlid"),
        U8.withName("sl"),
        U8.withName("src_path_bits"),
        U8.withName("static_rate"),
        U8.withName("is_global"),
        U8.withName("port_num"),
        pad(1)).withName("ibv_ah_attr");

    /** Byte offset of {@code grh} in {@code struct ibv_ah_attr}. */
    public static final long GRH_OFFSET = offset(LAYOUT, "grh");
    /** Byte offset of {@code dlid} in {@code struct ibv_ah_attr}. */
    public static final long DLID_OFFSET = offset(LAYOUT, "dlid");
    /** Byte offset of {@code sl} in {@code struct ibv_ah_attr}. */
    public static final long SL_OFFSET = offset(LAYOUT, "sl");
    /** Byte offset of {@code src_path_bits} in {@code struct ibv_ah_attr}. */
    public static final long SRC_PATH_BITS_OFFSET = offset(LAYOUT, "src_path_bits");
    /** Byte offset of {@code static_rate} in {@code struct ibv_ah_attr}. */
    public static final long STATIC_RATE_OFFSET = offset(LAYOUT, "static_rate");
    /** Byte offset of {@code is_global} in {@code struct ibv_ah_attr}. */
    public static final long IS_GLOBAL_OFFSET = offset(LAYOUT, "is_global");
    /** Byte offset of {@code port_num} in {@code struct ibv_ah_attr}. */
    public static final long PORT_NUM_OFFSET = offset(LAYOUT, "port_num");

    private IbvAhAttr()
    {
    }
}
