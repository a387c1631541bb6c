// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_qp_init_attr_ex} (verbs.h, rdma-core 44): input of ibv_create_qp_ex. Its head is
 * {@code struct ibv_qp_init_attr}, which is why verbs.h may pass it to ibv_create_qp when only the PD is set.
 * {@code send_ops_flags} (with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) asks for the ibv_qp_ex ibv_wr_* API.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvQpInitAttrEx
{
    /** {@code IBV_QP_INIT_ATTR_PD} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_INIT_ATTR_PD = 1 << 0;
    /** {@code IBV_QP_INIT_ATTR_XRCD} ({@code infiniband/verbs.h}): {@code xrcd} is valid (an XRC TGT QP). */
    public static final int IBV_QP_INIT_ATTR_XRCD = 1 << 1;
    /** rwq_ind_tbl and rx_hash_conf are valid: an RSS QP (no queues of its own). */
    public static final int IBV_QP_INIT_ATTR_IND_TABLE = 1 << 4;
    /** {@code IBV_QP_INIT_ATTR_RX_HASH} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_INIT_ATTR_RX_HASH = 1 << 5;
    /** {@code IBV_QP_INIT_ATTR_SEND_OPS_FLAGS} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;
    /** enum ibv_qp_create_send_ops_flags. */
    public static final long IBV_QP_EX_WITH_RDMA_WRITE = 1 << 0;
    /** {@code IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1;
    /** {@code IBV_QP_EX_WITH_SEND} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_SEND = 1 << 2;
    /** {@code IBV_QP_EX_WITH_SEND_WITH_IMM} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_SEND_WITH_IMM = 1 << 3;
    /** {@code IBV_QP_EX_WITH_RDMA_READ} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_RDMA_READ = 1 << 4;
    /** {@code IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5;
    /** {@code IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6;
    /** {@code IBV_QP_EX_WITH_LOCAL_INV} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_LOCAL_INV = 1 << 7;
    /** {@code IBV_QP_EX_WITH_BIND_MW} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_BIND_MW = 1 << 8;
    /** {@code IBV_QP_EX_WITH_SEND_WITH_INV} ({@code infiniband/verbs.h}). */
    public static final long IBV_QP_EX_WITH_SEND_WITH_INV = 1 << 9;

    /** Memory layout of {@code struct ibv_qp_init_attr_ex} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("qp_context"),
        C_POINTER.withName("send_cq"),
        C_POINTER.withName("recv_cq"),
        C_POINTER.withName("srq"),
        IbvQpCap.LAYOUT.withName("cap"),
        C_INT.withName("qp_type"),
        C_INT.withName("sq_sig_all"),
        U32.withName("comp_mask"),
        C_POINTER.withName("pd"),
        C_POINTER.withName("xrcd"),
        U32.withName("create_flags"),
        U16.withName("max_tso_header"),
        pad(2),
        C_POINTER.withName("rwq_ind_tbl"),
        IbvRxHashConf.LAYOUT.withName("rx_hash_conf"),
        U32.withName("source_qpn"),
        pad(4),
        U64.withName("send_ops_flags")).withName("ibv_qp_init_attr_ex");

    /** Byte offset of {@code qp_context} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long QP_CONTEXT_OFFSET = offset(LAYOUT, "qp_context");
    /** Byte offset of {@code send_cq} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long SEND_CQ_OFFSET = offset(LAYOUT, "send_cq");
    /** Byte offset of {@code recv_cq} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long RECV_CQ_OFFSET = offset(LAYOUT, "recv_cq");
    /** Byte offset of {@code srq} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long SRQ_OFFSET = offset(LAYOUT, "srq");
    /** Byte offset of {@code cap} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long CAP_OFFSET = offset(LAYOUT, "cap");
    /** Byte offset of {@code qp_type} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long QP_TYPE_OFFSET = offset(LAYOUT, "qp_type");
    /** Byte offset of {@code sq_sig_all} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long SQ_SIG_ALL_OFFSET = offset(LAYOUT, "sq_sig_all");
    /** Byte offset of {@code comp_mask} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code pd} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code xrcd} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long XRCD_OFFSET = offset(LAYOUT, "xrcd");
    /** Byte offset of {@code create_flags} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long CREATE_FLAGS_OFFSET = offset(LAYOUT, "create_flags");
    /** Byte offset of {@code rwq_ind_tbl} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long RWQ_IND_TBL_OFFSET = offset(LAYOUT, "rwq_ind_tbl");
    /** Byte offset of {@code rx_hash_conf} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long RX_HASH_CONF_OFFSET = offset(LAYOUT, "rx_hash_conf");
    /** Byte offset of {@code send_ops_flags} in {@code struct ibv_qp_init_attr_ex}. */
    public static final long SEND_OPS_FLAGS_OFFSET = offset(LAYOUT, "send_ops_flags");

    private IbvQpInitAttrEx()
    {
    }
}
