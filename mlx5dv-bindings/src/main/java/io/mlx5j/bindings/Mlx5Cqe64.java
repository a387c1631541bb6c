package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct mlx5_cqe64} (mlx5dv.h, rdma-core 44): a 64-byte CQE, or the second half of a 128-byte one. The
 * first 32 bytes are an anonymous union (responder fields / tag-matching views). Decoding belongs to wqe-builder;
 * this is the header's shape, used to prove offsets.
 */
public final class Mlx5Cqe64
{
    public static final GroupLayout LAYOUT = structLayout(
        unionLayout(
            structLayout(
                bytes(2).withName("rsvd0"),
                BE16.withName("wqe_id"),
                bytes(13).withName("rsvd4"),
                U8.withName("ml_path"),
                bytes(4).withName("rsvd20"),
                BE16.withName("slid"),
                BE32.withName("flags_rqpn"),
                U8.withName("hds_ip_ext"),
                U8.withName("l4_hdr_type_etc"),
                BE16.withName("vlan_info")).withName(Layouts.ANON + "1"),
            Mlx5TmCqe.LAYOUT.withName("tm_cqe"),
            IbvTmh.LAYOUT.withName("tmh")).withName(Layouts.ANON + "0"),
        BE32.withName("srqn_uidx"),
        BE32.withName("imm_inval_pkey"),
        U8.withName("app"),
        U8.withName("app_op"),
        BE16.withName("app_info"),
        BE32.withName("byte_cnt"),
        BE64.withName("timestamp"),
        BE32.withName("sop_drop_qpn"),
        BE16.withName("wqe_counter"),
        U8.withName("signature"),
        U8.withName("op_own")).withName("mlx5_cqe64");

    public static final long WQE_ID_OFFSET = offset(LAYOUT, "wqe_id");
    public static final long ML_PATH_OFFSET = offset(LAYOUT, "ml_path");
    public static final long SLID_OFFSET = offset(LAYOUT, "slid");
    public static final long FLAGS_RQPN_OFFSET = offset(LAYOUT, "flags_rqpn");
    public static final long HDS_IP_EXT_OFFSET = offset(LAYOUT, "hds_ip_ext");
    public static final long L4_HDR_TYPE_ETC_OFFSET = offset(LAYOUT, "l4_hdr_type_etc");
    public static final long VLAN_INFO_OFFSET = offset(LAYOUT, "vlan_info");
    public static final long SRQN_UIDX_OFFSET = offset(LAYOUT, "srqn_uidx");
    public static final long IMM_INVAL_PKEY_OFFSET = offset(LAYOUT, "imm_inval_pkey");
    public static final long APP_OFFSET = offset(LAYOUT, "app");
    public static final long APP_OP_OFFSET = offset(LAYOUT, "app_op");
    public static final long APP_INFO_OFFSET = offset(LAYOUT, "app_info");
    public static final long BYTE_CNT_OFFSET = offset(LAYOUT, "byte_cnt");
    public static final long TIMESTAMP_OFFSET = offset(LAYOUT, "timestamp");
    public static final long SOP_DROP_QPN_OFFSET = offset(LAYOUT, "sop_drop_qpn");
    public static final long WQE_COUNTER_OFFSET = offset(LAYOUT, "wqe_counter");
    public static final long SIGNATURE_OFFSET = offset(LAYOUT, "signature");
    public static final long OP_OWN_OFFSET = offset(LAYOUT, "op_own");

    private Mlx5Cqe64()
    {
    }
}
