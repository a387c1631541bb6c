// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_sa_path_rec} (infiniband/sa.h, rdma-core 44): the path record a route resolved to; rdma_cm_id's
 * {@code route.path_rec} points at {@code route.num_paths} of them.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvSaPathRec
{
    /** Memory layout of {@code struct ibv_sa_path_rec} (infiniband/sa.h). */
    public static final GroupLayout LAYOUT = structLayout(
        IbvGid.LAYOUT.withName("dgid"),
        IbvGid.LAYOUT.withName("sgid"),
        BE16.withName("dlid"),
        BE16.withName("slid"),
        C_INT.withName("raw_traffic"),
        BE32.withName("flow_label"),
        U8.withName("hop_limit"),
        U8.withName("traffic_class"),
        pad(2),
        C_INT.withName("reversible"),
        U8.withName("numb_path"),
        pad(1),
        BE16.withName("pkey"),
        U8.withName("sl"),
        U8.withName("mtu_selector"),
        U8.withName("mtu"),
        U8.withName("rate_selector"),
        U8.withName("rate"),
        U8.withName("packet_life_time_selector"),
        U8.withName("packet_life_time"),
        U8.withName("preference")).withName("ibv_sa_path_rec");

    /** Byte offset of {@code dgid} in {@code struct ibv_sa_path_rec}. */
    public static final long DGID_OFFSET = offset(LAYOUT, "dgid");
    /** Byte offset of {@code sgid} in {@code struct ibv_sa_path_rec}. */
    public static final long SGID_OFFSET = offset(LAYOUT, "sgid");
    /** Byte offset of {@code dlid} in {@code struct ibv_sa_path_rec}. */
    public static final long DLID_OFFSET = offset(LAYOUT, "dlid");
    /** Byte offset of {@code slid} in {@code struct ibv_sa_path_rec}. */
    public static final long SLID_OFFSET = offset(LAYOUT, "slid");
    /** Byte offset of {@code pkey} in {@code struct ibv_sa_path_rec}. */
    public static final long PKEY_OFFSET = offset(LAYOUT, "pkey");
    /** Byte offset of {@code sl} in {@code struct ibv_sa_path_rec}. */
    public static final long SL_OFFSET = offset(LAYOUT, "sl");
    /** Byte offset of {@code mtu} in {@code struct ibv_sa_path_rec}. */
    public static final long MTU_OFFSET = offset(LAYOUT, "mtu");

    private IbvSaPathRec()
    {
    }
}
