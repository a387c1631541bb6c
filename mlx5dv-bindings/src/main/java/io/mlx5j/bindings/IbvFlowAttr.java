// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow_attr} (verbs.h, rdma-core 44): the head of an ibv_create_flow request. The specs follow it
 * in the same buffer, back to back; {@code size} counts the head and every spec, {@code num_of_specs} the specs.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlowAttr
{
    /** enum ibv_flow_attr_type (verbs.h). */
    public static final int IBV_FLOW_ATTR_NORMAL = 0x0;
    /** {@code IBV_FLOW_ATTR_ALL_DEFAULT} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_ATTR_ALL_DEFAULT = 0x1;
    /** {@code IBV_FLOW_ATTR_MC_DEFAULT} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_ATTR_MC_DEFAULT = 0x2;
    /** {@code IBV_FLOW_ATTR_SNIFFER} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_ATTR_SNIFFER = 0x3;
    /** enum ibv_flow_flags (verbs.h): bit 0 is deprecated. */
    public static final int IBV_FLOW_ATTR_FLAGS_DONT_TRAP = 1 << 1;
    /** {@code IBV_FLOW_ATTR_FLAGS_EGRESS} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_ATTR_FLAGS_EGRESS = 1 << 2;
    /** enum ibv_flow_spec_type (verbs.h). */
    public static final int IBV_FLOW_SPEC_ETH = 0x20;
    /** {@code IBV_FLOW_SPEC_IPV4} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_SPEC_IPV4 = 0x30;
    /** {@code IBV_FLOW_SPEC_IPV6} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_SPEC_IPV6 = 0x31;
    /** {@code IBV_FLOW_SPEC_TCP} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_SPEC_TCP = 0x40;
    /** {@code IBV_FLOW_SPEC_UDP} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_SPEC_UDP = 0x41;
    /** {@code IBV_FLOW_SPEC_ACTION_TAG} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_SPEC_ACTION_TAG = 0x1000;
    /** {@code IBV_FLOW_SPEC_ACTION_DROP} ({@code infiniband/verbs.h}). */
    public static final int IBV_FLOW_SPEC_ACTION_DROP = 0x1001;

    /** Memory layout of {@code struct ibv_flow_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("comp_mask"),
        C_INT.withName("type"),
        U16.withName("size"),
        U16.withName("priority"),
        U8.withName("num_of_specs"),
        U8.withName("port"),
        pad(2),
        U32.withName("flags")).withName("ibv_flow_attr");

    /** Byte offset of {@code comp_mask} in {@code struct ibv_flow_attr}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code type} in {@code struct ibv_flow_attr}. */
    public static final long TYPE_OFFSET = offset(LAYOUT, "type");
    /** Byte offset of {@code size} in {@code struct ibv_flow_attr}. */
    public static final long SIZE_OFFSET = offset(LAYOUT, "size");
    /** Byte offset of {@code priority} in {@code struct ibv_flow_attr}. */
    public static final long PRIORITY_OFFSET = offset(LAYOUT, "priority");
    /** Byte offset of {@code num_of_specs} in {@code struct ibv_flow_attr}. */
    public static final long NUM_OF_SPECS_OFFSET = offset(LAYOUT, "num_of_specs");
    /** Byte offset of {@code port} in {@code struct ibv_flow_attr}. */
    public static final long PORT_OFFSET = offset(LAYOUT, "port");
    /** Byte offset of {@code flags} in {@code struct ibv_flow_attr}. */
    public static final long FLAGS_OFFSET = offset(LAYOUT, "flags");

    private IbvFlowAttr()
    {
    }
}
