// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow_tcp_udp_filter} (verbs.h, rdma-core 44): ports in network byte order.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlowTcpUdpFilter
{
    /** Memory layout of {@code struct ibv_flow_tcp_udp_filter} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U16.withName("dst_port"),
        U16.withName("src_port")).withName("ibv_flow_tcp_udp_filter");

    /** Byte offset of {@code dst_port} in {@code struct ibv_flow_tcp_udp_filter}. */
    public static final long DST_PORT_OFFSET = offset(LAYOUT, "dst_port");
    /** Byte offset of {@code src_port} in {@code struct ibv_flow_tcp_udp_filter}. */
    public static final long SRC_PORT_OFFSET = offset(LAYOUT, "src_port");

    private IbvFlowTcpUdpFilter()
    {
    }
}
