// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow_eth_filter} (verbs.h, rdma-core 44). MACs are wire-order bytes; ether_type and vlan_tag are
 * {@code uint16_t} in the header but carry network-order values (libibverbs copies them to the kernel unchanged and
 * the kernel matches them as __be16), so mlx5j stores them big-endian.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlowEthFilter
{
    /** Memory layout of {@code struct ibv_flow_eth_filter} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        bytes(6).withName("dst_mac"),
        bytes(6).withName("src_mac"),
        U16.withName("ether_type"),
        U16.withName("vlan_tag")).withName("ibv_flow_eth_filter");

    /** Byte offset of {@code dst_mac} in {@code struct ibv_flow_eth_filter}. */
    public static final long DST_MAC_OFFSET = offset(LAYOUT, "dst_mac");
    /** Byte offset of {@code src_mac} in {@code struct ibv_flow_eth_filter}. */
    public static final long SRC_MAC_OFFSET = offset(LAYOUT, "src_mac");
    /** Byte offset of {@code ether_type} in {@code struct ibv_flow_eth_filter}. */
    public static final long ETHER_TYPE_OFFSET = offset(LAYOUT, "ether_type");
    /** Byte offset of {@code vlan_tag} in {@code struct ibv_flow_eth_filter}. */
    public static final long VLAN_TAG_OFFSET = offset(LAYOUT, "vlan_tag");

    private IbvFlowEthFilter()
    {
    }
}
