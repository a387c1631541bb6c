// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_qp_init_attr} (verbs.h, rdma-core 44): input of ibv_create_qp.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvQpInitAttr
{
    /** enum ibv_qp_type. */
    public static final int IBV_QPT_RC = 2;
    /** {@code IBV_QPT_UC} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPT_UC = 3;
    /** {@code IBV_QPT_UD} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPT_UD = 4;
    /** Raw Ethernet frames (verbs.h enum ibv_qp_type); needs an Ethernet port and CAP_NET_RAW. */
    public static final int IBV_QPT_RAW_PACKET = 8;
    /** {@code IBV_QPT_DRIVER} (verbs.h enum ibv_qp_type): a provider QP type, here mlx5 DC (mlx5dv_create_qp). */
    public static final int IBV_QPT_DRIVER = 0xff;
    /** {@code IBV_QPT_XRC_SEND} ({@code infiniband/verbs.h}): the XRC initiator. */
    public static final int IBV_QPT_XRC_SEND = 9;
    /** {@code IBV_QPT_XRC_RECV} ({@code infiniband/verbs.h}): the XRC target, in an XRC domain. */
    public static final int IBV_QPT_XRC_RECV = 10;

    /** Memory layout of {@code struct ibv_qp_init_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("qp_context"),
        C_POINTER.withName("send_cq"),
        C_POINTER.withName("recv_cq"),
        C_POINTER.withName("srq"),
        IbvQpCap.LAYOUT.withName("cap"),
        C_INT.withName("qp_type"),
        C_INT.withName("sq_sig_all"),
        pad(4)).withName("ibv_qp_init_attr");

    /** Byte offset of {@code qp_context} in {@code struct ibv_qp_init_attr}. */
    public static final long QP_CONTEXT_OFFSET = offset(LAYOUT, "qp_context");
    /** Byte offset of {@code send_cq} in {@code struct ibv_qp_init_attr}. */
    public static final long SEND_CQ_OFFSET = offset(LAYOUT, "send_cq");
    /** Byte offset of {@code recv_cq} in {@code struct ibv_qp_init_attr}. */
    public static final long RECV_CQ_OFFSET = offset(LAYOUT, "recv_cq");
    /** Byte offset of {@code srq} in {@code struct ibv_qp_init_attr}. */
    public static final long SRQ_OFFSET = offset(LAYOUT, "srq");
    /** Byte offset of {@code cap} in {@code struct ibv_qp_init_attr}. */
    public static final long CAP_OFFSET = offset(LAYOUT, "cap");
    /** Byte offset of {@code qp_type} in {@code struct ibv_qp_init_attr}. */
    public static final long QP_TYPE_OFFSET = offset(LAYOUT, "qp_type");
    /** Byte offset of {@code sq_sig_all} in {@code struct ibv_qp_init_attr}. */
    public static final long SQ_SIG_ALL_OFFSET = offset(LAYOUT, "sq_sig_all");

    private IbvQpInitAttr()
    {
    }
}
