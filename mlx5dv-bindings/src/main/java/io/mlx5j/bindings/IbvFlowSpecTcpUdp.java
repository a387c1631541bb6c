// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow_spec_tcp_udp} (verbs.h, rdma-core 44): type IBV_FLOW_SPEC_TCP or IBV_FLOW_SPEC_UDP.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlowSpecTcpUdp
{
    /** Memory layout of {@code struct ibv_flow_spec_tcp_udp} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("type"),
        U16.withName("size"),
        IbvFlowTcpUdpFilter.LAYOUT.withName("val"),
        IbvFlowTcpUdpFilter.LAYOUT.withName("mask"),
        pad(2)).withName("ibv_flow_spec_tcp_udp");

    /** Byte offset of {@code type} in {@code struct ibv_flow_spec_tcp_udp}. */
    public static final long TYPE_OFFSET = offset(LAYOUT, "type");
    /** Byte offset of {@code size} in {@code struct ibv_flow_spec_tcp_udp}. */
    public static final long SIZE_OFFSET = offset(LAYOUT, "size");
    /** Byte offset of {@code val} in {@code struct ibv_flow_spec_tcp_udp}. */
    public static final long VAL_OFFSET = offset(LAYOUT, "val");
    /** Byte offset of {@code mask} in {@code struct ibv_flow_spec_tcp_udp}. */
    public static final long MASK_OFFSET = offset(LAYOUT, "mask");

    private IbvFlowSpecTcpUdp()
    {
    }
}
