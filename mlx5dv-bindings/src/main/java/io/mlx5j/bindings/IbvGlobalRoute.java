// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_global_route} (verbs.h, rdma-core 44): the GRH part of an address (RoCE always, IB when global).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvGlobalRoute
{
    /** Memory layout of {@code struct ibv_global_route} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        IbvGid.LAYOUT.withName("dgid"),
        U32.withName("flow_label"),
        U8.withName("sgid_index"),
        U8.withName("hop_limit"),
        U8.withName("traffic_class"),
        pad(1)).withName("ibv_global_route");

    /** Byte offset of {@code dgid} in {@code struct ibv_global_route}. */
    public static final long DGID_OFFSET = offset(LAYOUT, "dgid");
    /** Byte offset of {@code flow_label} in {@code struct ibv_global_route}. */
    public static final long FLOW_LABEL_OFFSET = offset(LAYOUT, "flow_label");
    /** Byte offset of {@code sgid_index} in {@code struct ibv_global_route}. */
    public static final long SGID_INDEX_OFFSET = offset(LAYOUT, "sgid_index");
    /** Byte offset of {@code hop_limit} in {@code struct ibv_global_route}. */
    public static final long HOP_LIMIT_OFFSET = offset(LAYOUT, "hop_limit");
    /** Byte offset of {@code traffic_class} in {@code struct ibv_global_route}. */
    public static final long TRAFFIC_CLASS_OFFSET = offset(LAYOUT, "traffic_class");

    private IbvGlobalRoute()
    {
    }
}
