// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_srq_init_attr_ex} (verbs.h, rdma-core 44): input of ibv_create_srq_ex; granted sizes are written
 * back into {@code attr}. An XRC SRQ (IBV_SRQT_XRC) names its PD, XRC domain and CQ.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvSrqInitAttrEx
{
    /** enum ibv_srq_init_attr_mask: {@code srq_type} is valid. */
    public static final int IBV_SRQ_INIT_ATTR_TYPE = 1 << 0;
    /** enum ibv_srq_init_attr_mask: {@code pd} is valid. */
    public static final int IBV_SRQ_INIT_ATTR_PD = 1 << 1;
    /** enum ibv_srq_init_attr_mask: {@code xrcd} is valid. */
    public static final int IBV_SRQ_INIT_ATTR_XRCD = 1 << 2;
    /** enum ibv_srq_init_attr_mask: {@code cq} is valid. */
    public static final int IBV_SRQ_INIT_ATTR_CQ = 1 << 3;
    /** enum ibv_srq_type: a plain SRQ. */
    public static final int IBV_SRQT_BASIC = 0;
    /** enum ibv_srq_type: an XRC SRQ, in an XRC domain, completing on its own CQ. */
    public static final int IBV_SRQT_XRC = 1;

    /** Memory layout of {@code struct ibv_srq_init_attr_ex} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("srq_context"),
        IbvSrqAttr.LAYOUT.withName("attr"),
        U32.withName("comp_mask"),
        C_INT.withName("srq_type"),
        pad(4),
        C_POINTER.withName("pd"),
        C_POINTER.withName("xrcd"),
        C_POINTER.withName("cq"),
        IbvTmCap.LAYOUT.withName("tm_cap")).withName("ibv_srq_init_attr_ex");

    /** Byte offset of {@code attr} in {@code struct ibv_srq_init_attr_ex}. */
    public static final long ATTR_OFFSET = offset(LAYOUT, "attr");
    /** Byte offset of {@code comp_mask} in {@code struct ibv_srq_init_attr_ex}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code srq_type} in {@code struct ibv_srq_init_attr_ex}. */
    public static final long SRQ_TYPE_OFFSET = offset(LAYOUT, "srq_type");
    /** Byte offset of {@code pd} in {@code struct ibv_srq_init_attr_ex}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code xrcd} in {@code struct ibv_srq_init_attr_ex}. */
    public static final long XRCD_OFFSET = offset(LAYOUT, "xrcd");
    /** Byte offset of {@code cq} in {@code struct ibv_srq_init_attr_ex}. */
    public static final long CQ_OFFSET = offset(LAYOUT, "cq");

    private IbvSrqInitAttrEx()
    {
    }
}
