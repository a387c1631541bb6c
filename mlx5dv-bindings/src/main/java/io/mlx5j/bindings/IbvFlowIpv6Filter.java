// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow_ipv6_filter} (verbs.h, rdma-core 44): addresses and flow label in network byte order.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlowIpv6Filter
{
    /** Memory layout of {@code struct ibv_flow_ipv6_filter} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        bytes(16).withName("src_ip"),
        bytes(16).withName("dst_ip"),
        U32.withName("flow_label"),
        U8.withName("next_hdr"),
        U8.withName("traffic_class"),
        U8.withName("hop_limit"),
        pad(1)).withName("ibv_flow_ipv6_filter");

    /** Byte offset of {@code src_ip} in {@code struct ibv_flow_ipv6_filter}. */
    public static final long SRC_IP_OFFSET = offset(LAYOUT, "src_ip");
    /** Byte offset of {@code dst_ip} in {@code struct ibv_flow_ipv6_filter}. */
    public static final long DST_IP_OFFSET = offset(LAYOUT, "dst_ip");
    /** Byte offset of {@code flow_label} in {@code struct ibv_flow_ipv6_filter}. */
    public static final long FLOW_LABEL_OFFSET = offset(LAYOUT, "flow_label");
    /** Byte offset of {@code next_hdr} in {@code struct ibv_flow_ipv6_filter}. */
    public static final long NEXT_HDR_OFFSET = offset(LAYOUT, "next_hdr");
    /** Byte offset of {@code traffic_class} in {@code struct ibv_flow_ipv6_filter}. */
    public static final long TRAFFIC_CLASS_OFFSET = offset(LAYOUT, "traffic_class");
    /** Byte offset of {@code hop_limit} in {@code struct ibv_flow_ipv6_filter}. */
    public static final long HOP_LIMIT_OFFSET = offset(LAYOUT, "hop_limit");

    private IbvFlowIpv6Filter()
    {
    }
}
