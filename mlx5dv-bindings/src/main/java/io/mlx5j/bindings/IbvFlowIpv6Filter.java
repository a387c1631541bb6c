// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_flow_ipv6_filter} (verbs.h, rdma-core 44): addresses and flow label in network byte order. */
public final class IbvFlowIpv6Filter
{
    public static final GroupLayout LAYOUT = structLayout(
        bytes(16).withName("src_ip"),
        bytes(16).withName("dst_ip"),
        U32.withName("flow_label"),
        U8.withName("next_hdr"),
        U8.withName("traffic_class"),
        U8.withName("hop_limit"),
        pad(1)).withName("ibv_flow_ipv6_filter");

    public static final long SRC_IP_OFFSET = offset(LAYOUT, "src_ip");
    public static final long DST_IP_OFFSET = offset(LAYOUT, "dst_ip");
    public static final long FLOW_LABEL_OFFSET = offset(LAYOUT, "flow_label");
    public static final long NEXT_HDR_OFFSET = offset(LAYOUT, "next_hdr");
    public static final long TRAFFIC_CLASS_OFFSET = offset(LAYOUT, "traffic_class");
    public static final long HOP_LIMIT_OFFSET = offset(LAYOUT, "hop_limit");

    private IbvFlowIpv6Filter()
    {
    }
}
