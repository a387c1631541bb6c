// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow_ipv4_filter} (verbs.h, rdma-core 44): addresses in network byte order.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlowIpv4Filter
{
    /** Memory layout of {@code struct ibv_flow_ipv4_filter} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("src_ip"),
        U32.withName("dst_ip")).withName("ibv_flow_ipv4_filter");

    /** Byte offset of {@code src_ip} in {@code struct ibv_flow_ipv4_filter}. */
    public static final long SRC_IP_OFFSET = offset(LAYOUT, "src_ip");
    /** Byte offset of {@code dst_ip} in {@code struct ibv_flow_ipv4_filter}. */
    public static final long DST_IP_OFFSET = offset(LAYOUT, "dst_ip");

    private IbvFlowIpv4Filter()
    {
    }
}
