// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_port_attr} (verbs.h, rdma-core 44). The exported symbol ibv_query_port takes the older
 * {@code struct _compat_ibv_port_attr}, a prefix of this one (no {@code flags}, {@code port_cap_flags2}); the verbs.h
 * macro calls {@code verbs_context->query_port} with {@code sizeof(struct ibv_port_attr)} when the provider has it.
 * {@link InlineVerbs#ibv_query_port} does the same.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvPortAttr
{
    /** enum ibv_port_state. */
    public static final int IBV_PORT_ACTIVE = 4;
    /** IBV_LINK_LAYER_*. */
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    /** {@code IBV_LINK_LAYER_ETHERNET} ({@code infiniband/verbs.h}). */
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    /** Memory layout of {@code struct ibv_port_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("state"),
        C_INT.withName("max_mtu"),
        C_INT.withName("active_mtu"),
        C_INT.withName("gid_tbl_len"),
        U32.withName("port_cap_flags"),
        U32.withName("max_msg_sz"),
        U32.withName("bad_pkey_cntr"),
        U32.withName("qkey_viol_cntr"),
        U16.withName("pkey_tbl_len"),
        U16.withName("lid"),
        U16.withName("sm_lid"),
        U8.withName("lmc"),
        U8.withName("max_vl_num"),
        U8.withName("sm_sl"),
        U8.withName("subnet_timeout"),
        U8.withName("init_type_reply"),
        U8.withName("active_width"),
        U8.withName("active_speed"),
        U8.withName("phys_state"),
        U8.withName("link_layer"),
        U8.withName("flags"),
        U16.withName("port_cap_flags2"),
        pad(2)).withName("ibv_port_attr");

    /** Byte offset of {@code state} in {@code struct ibv_port_attr}. */
    public static final long STATE_OFFSET = offset(LAYOUT, "state");
    /** Byte offset of {@code max_mtu} in {@code struct ibv_port_attr}. */
    public static final long MAX_MTU_OFFSET = offset(LAYOUT, "max_mtu");
    /** Byte offset of {@code active_mtu} in {@code struct ibv_port_attr}. */
    public static final long ACTIVE_MTU_OFFSET = offset(LAYOUT, "active_mtu");
    /** Byte offset of {@code gid_tbl_len} in {@code struct ibv_port_attr}. */
    public static final long GID_TBL_LEN_OFFSET = offset(LAYOUT, "gid_tbl_len");
    /** Byte offset of {@code port_cap_flags} in {@code struct ibv_port_attr}. */
    public static final long PORT_CAP_FLAGS_OFFSET = offset(LAYOUT, "port_cap_flags");
    /** Byte offset of {@code max_msg_sz} in {@code struct ibv_port_attr}. */
    public static final long MAX_MSG_SZ_OFFSET = offset(LAYOUT, "max_msg_sz");
    /** Byte offset of {@code pkey_tbl_len} in {@code struct ibv_port_attr}. */
    public static final long PKEY_TBL_LEN_OFFSET = offset(LAYOUT, "pkey_tbl_len");
    /** Byte offset of {@code lid} in {@code struct ibv_port_attr}. */
    public static final long LID_OFFSET = offset(LAYOUT, "lid");
    /** Byte offset of {@code sm_lid} in {@code struct ibv_port_attr}. */
    public static final long SM_LID_OFFSET = offset(LAYOUT, "sm_lid");
    /** Byte offset of {@code lmc} in {@code struct ibv_port_attr}. */
    public static final long LMC_OFFSET = offset(LAYOUT, "lmc");
    /** Byte offset of {@code active_width} in {@code struct ibv_port_attr}. */
    public static final long ACTIVE_WIDTH_OFFSET = offset(LAYOUT, "active_width");
    /** Byte offset of {@code active_speed} in {@code struct ibv_port_attr}. */
    public static final long ACTIVE_SPEED_OFFSET = offset(LAYOUT, "active_speed");
    /** Byte offset of {@code phys_state} in {@code struct ibv_port_attr}. */
    public static final long PHYS_STATE_OFFSET = offset(LAYOUT, "phys_state");
    /** Byte offset of {@code link_layer} in {@code struct ibv_port_attr}. */
    public static final long LINK_LAYER_OFFSET = offset(LAYOUT, "link_layer");
    /** Byte offset of {@code flags} in {@code struct ibv_port_attr}. */
    public static final long FLAGS_OFFSET = offset(LAYOUT, "flags");
    /** Byte offset of {@code port_cap_flags2} in {@code struct ibv_port_attr}. */
    public static final long PORT_CAP_FLAGS2_OFFSET = offset(LAYOUT, "port_cap_flags2");

    private IbvPortAttr()
    {
    }
}
