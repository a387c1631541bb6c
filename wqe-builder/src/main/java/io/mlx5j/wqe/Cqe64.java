// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * Completion queue entry ({@code struct mlx5_cqe64} and its error view {@code struct mlx5_err_cqe}, rdma-core v44
 * mlx5dv.h). In a 128-byte CQE these 64 bytes are the second half; the first half only carries
 * scatter-to-CQE data (MLX5_INLINE_SCATTER_64).
 * <pre>
 *        31            24 23           16 15            8 7             0
 *       +-------------------------------------------------------------+
 *  0x00 |  (responder: scatter-to-CQE data when MLX5_INLINE_SCATTER_32) |
 *       |  ...  0x16: slid (16)        0x18: flags_rqpn (32)          |
 *       +-------------------------------------------------------------+
 *  0x20 |                 srqn_uidx  (err CQE: srqn)                  |
 *       +-------------------------------------------------------------+
 *  0x24 |                       imm_inval_pkey                        |
 *       +-------------------------------------------------------------+
 *  0x28 |      app      |    app_op     |           app_info          |
 *       +-------------------------------------------------------------+
 *  0x2C |                          byte_cnt                           |
 *       +-------------------------------------------------------------+
 *  0x30 |                      timestamp (64)    (err CQE: 0x36       |
 *       |                      vendor_err_synd, 0x37 syndrome)        |
 *       +---------------+---------------------------------------------+
 *  0x38 | sop / s_wqe_op|               qpn                           |  sop_drop_qpn
 *       +---------------+---------------+---------------+-------------+
 *  0x3C |          wqe_counter          |   signature   |   op_own    |
 *       +-------------------------------+---------------+-------------+
 * </pre>
 * op_own: opcode in bits 7..4, then bits 3..2 (format, or the MLX5_INLINE_SCATTER_64 / _32 flags of responder and
 * requester CQEs), bit 1 solicited event, bit 0 owner.
 *
 * <p>Thread model: constants only; any thread.
 */
public final class Cqe64
{
    /** Ethernet receive CQEs: the index of the striding-RQ WQE the packet landed in (mlx5dv.h wqe_id). */
    public static final int WQE_ID_OFFSET = 0x02;
    /** Ethernet receive CQEs: the RSS (Toeplitz) hash and its type (PRM; DPDK mlx5_prm.h rx_hash_res). */
    public static final int RSS_HASH_RESULT_OFFSET = 0x0c;
    /** Byte offset of {@code rss_hash_type} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int RSS_HASH_TYPE_OFFSET = 0x10;
    /** Byte offset of {@code ml_path} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int ML_PATH_OFFSET = 0x11;
    /** Ethernet receive CQEs: L4 checksum the device computed over the packet (PRM check_sum). */
    public static final int CHECK_SUM_OFFSET = 0x14;
    /** Byte offset of {@code slid} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int SLID_OFFSET = 0x16;
    /** Byte offset of {@code flags_rqpn} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int FLAGS_RQPN_OFFSET = 0x18;
    /** Ethernet receive CQEs: L2/L3/L4 OK bits ({@link #MLX5_CQE_L3_OK}, {@link #MLX5_CQE_L4_OK}). */
    public static final int HDS_IP_EXT_OFFSET = 0x1c;
    /** Ethernet receive CQEs: L4 header type in bits 6..4, L3 header type in bits 3..2, VLAN stripped in bit 0. */
    public static final int L4_HDR_TYPE_ETC_OFFSET = 0x1d;
    /** Ethernet receive CQEs: the TCI of a VLAN tag the device stripped (libmlx5 mlx5_cq_read_wc_cvlan). */
    public static final int VLAN_INFO_OFFSET = 0x1e;
    /** Byte offset of {@code srqn_uidx} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int SRQN_UIDX_OFFSET = 0x20;
    /** Byte offset of {@code imm_inval_pkey} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int IMM_INVAL_PKEY_OFFSET = 0x24;
    /** Byte offset of {@code byte_cnt} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int BYTE_CNT_OFFSET = 0x2c;
    /** Byte offset of {@code timestamp} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int TIMESTAMP_OFFSET = 0x30;
    /** Byte offset of {@code vendor_err_synd} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int VENDOR_ERR_SYND_OFFSET = 0x36;
    /** Byte offset of {@code syndrome} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int SYNDROME_OFFSET = 0x37;
    /** Byte offset of {@code sop_drop_qpn} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int SOP_DROP_QPN_OFFSET = 0x38;
    /** Byte offset of {@code wqe_counter} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int WQE_COUNTER_OFFSET = 0x3c;
    /** Byte offset of {@code signature} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int SIGNATURE_OFFSET = 0x3e;
    /** Byte offset of {@code op_own} in the 64-byte CQE ({@code struct mlx5_cqe64}). */
    public static final int OP_OWN_OFFSET = 0x3f;
    /** Size of the 64-byte CQE ({@code struct mlx5_cqe64}) in bytes. */
    public static final int LENGTH = 64;

    /** {@code MLX5_CQE_OWNER_MASK} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_OWNER_MASK = 1;

    /** hds_ip_ext bits (mlx5dv.h). */
    public static final int MLX5_CQE_L2_OK = 1 << 0;
    /** {@code MLX5_CQE_L3_OK} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_L3_OK = 1 << 1;
    /** {@code MLX5_CQE_L4_OK} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_L4_OK = 1 << 2;
    /** L3 header types, bits 3..2 of l4_hdr_type_etc (mlx5dv.h). */
    public static final int MLX5_CQE_L3_HDR_TYPE_NONE = 0x0;
    /** {@code MLX5_CQE_L3_HDR_TYPE_IPV6} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_L3_HDR_TYPE_IPV6 = 0x1;
    /** {@code MLX5_CQE_L3_HDR_TYPE_IPV4} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_L3_HDR_TYPE_IPV4 = 0x2;
    /** L4 header types, bits 6..4 of l4_hdr_type_etc (PRM; Linux include/linux/mlx5/device.h CQE_L4_HDR_TYPE_*). */
    public static final int CQE_L4_HDR_TYPE_NONE = 0x0;
    /** l4_hdr_type 1: TCP segment without ACK (bits 6..4 of l4_hdr_type_etc; libmlx5's mlx5.h). */
    public static final int CQE_L4_HDR_TYPE_TCP_NO_ACK = 0x1;
    /** l4_hdr_type 2: UDP datagram (bits 6..4 of l4_hdr_type_etc; libmlx5's mlx5.h). */
    public static final int CQE_L4_HDR_TYPE_UDP = 0x2;
    /** l4_hdr_type 3: TCP ACK without data (bits 6..4 of l4_hdr_type_etc; libmlx5's mlx5.h). */
    public static final int CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA = 0x3;
    /** l4_hdr_type 4: TCP ACK with data (bits 6..4 of l4_hdr_type_etc; libmlx5's mlx5.h). */
    public static final int CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA = 0x4;
    /** The flow tag of the steering rule that matched: low 24 bits of sop_drop_qpn (libmlx5 MLX5_FLOW_TAG_MASK). */
    public static final int MLX5_FLOW_TAG_MASK = 0x00ffffff;
    /** Striding RQ: byte_cnt holds the length, the strides consumed and a filler flag (DPDK mlx5_prm.h MLX5_MPRQ_*). */
    public static final int MPRQ_LEN_MASK = 0x0000ffff;
    /** Striding RQ: the byte_cnt bits that count the strides a packet consumed. */
    public static final int MPRQ_STRIDE_NUM_MASK = 0x3fff0000;
    /** Striding RQ: shift of the consumed-strides count in byte_cnt. */
    public static final int MPRQ_STRIDE_NUM_SHIFT = 16;
    /** Striding RQ: the byte_cnt bit that marks a filler CQE. */
    public static final int MPRQ_FILLER_MASK = 0x80000000;
    /** {@code MLX5_CQE_REQ} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_REQ = 0;
    /** {@code MLX5_CQE_RESP_WR_IMM} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_RESP_WR_IMM = 1;
    /** {@code MLX5_CQE_RESP_SEND} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_RESP_SEND = 2;
    /** {@code MLX5_CQE_RESP_SEND_IMM} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_RESP_SEND_IMM = 3;
    /** {@code MLX5_CQE_RESP_SEND_INV} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_RESP_SEND_INV = 4;
    /** {@code MLX5_CQE_RESIZE_CQ} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_RESIZE_CQ = 5;
    /** {@code MLX5_CQE_NO_PACKET} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_NO_PACKET = 6;
    /** {@code MLX5_CQE_SIG_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SIG_ERR = 12;
    /** {@code MLX5_CQE_REQ_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_REQ_ERR = 13;
    /** {@code MLX5_CQE_RESP_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_RESP_ERR = 14;
    /** {@code MLX5_CQE_INVALID} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_INVALID = 15;

    /** op_own flag: up to 32 bytes of data were scattered into this cqe64 at offset 0. */
    public static final int MLX5_INLINE_SCATTER_32 = 0x4;
    /** op_own flag: up to 64 bytes of data were scattered into the first half of a 128-byte CQE. */
    public static final int MLX5_INLINE_SCATTER_64 = 0x8;

    /** {@code MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR = 0x01;
    /** {@code MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR = 0x02;
    /** {@code MLX5_CQE_SYNDROME_LOCAL_PROT_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_LOCAL_PROT_ERR = 0x04;
    /** {@code MLX5_CQE_SYNDROME_WR_FLUSH_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_WR_FLUSH_ERR = 0x05;
    /** {@code MLX5_CQE_SYNDROME_MW_BIND_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_MW_BIND_ERR = 0x06;
    /** {@code MLX5_CQE_SYNDROME_BAD_RESP_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_BAD_RESP_ERR = 0x10;
    /** {@code MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR = 0x11;
    /** {@code MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR = 0x12;
    /** {@code MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR = 0x13;
    /** {@code MLX5_CQE_SYNDROME_REMOTE_OP_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_REMOTE_OP_ERR = 0x14;
    /** {@code MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR = 0x15;
    /** {@code MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR = 0x16;
    /** {@code MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR = 0x22;

    private Cqe64()
    {
    }
}
