// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_wq_init_attr} (verbs.h, rdma-core 44).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvWqInitAttr
{
    /** enum ibv_wq_init_attr_mask: create_flags is valid. */
    public static final int IBV_WQ_INIT_ATTR_FLAGS = 1 << 0;
    /** enum ibv_wq_flags: the NIC strips the customer VLAN tag and reports it in the CQE. */
    public static final int IBV_WQ_FLAGS_CVLAN_STRIPPING = 1 << 0;

    /** Memory layout of {@code struct ibv_wq_init_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("wq_context"),
        C_INT.withName("wq_type"),
        U32.withName("max_wr"),
        U32.withName("max_sge"),
        pad(4),
        C_POINTER.withName("pd"),
        C_POINTER.withName("cq"),
        U32.withName("comp_mask"),
        U32.withName("create_flags")).withName("ibv_wq_init_attr");

    /** Byte offset of {@code wq_type} in {@code struct ibv_wq_init_attr}. */
    public static final long WQ_TYPE_OFFSET = offset(LAYOUT, "wq_type");
    /** Byte offset of {@code max_wr} in {@code struct ibv_wq_init_attr}. */
    public static final long MAX_WR_OFFSET = offset(LAYOUT, "max_wr");
    /** Byte offset of {@code max_sge} in {@code struct ibv_wq_init_attr}. */
    public static final long MAX_SGE_OFFSET = offset(LAYOUT, "max_sge");
    /** Byte offset of {@code pd} in {@code struct ibv_wq_init_attr}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code cq} in {@code struct ibv_wq_init_attr}. */
    public static final long CQ_OFFSET = offset(LAYOUT, "cq");
    /** Byte offset of {@code comp_mask} in {@code struct ibv_wq_init_attr}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code create_flags} in {@code struct ibv_wq_init_attr}. */
    public static final long CREATE_FLAGS_OFFSET = offset(LAYOUT, "create_flags");

    private IbvWqInitAttr()
    {
    }
}
