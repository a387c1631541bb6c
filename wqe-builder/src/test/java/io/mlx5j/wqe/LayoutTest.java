// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every descriptor constant against offsetof/sizeof/enum values printed by gcc from the installed headers. */
class LayoutTest
{
    private static Map<String, Long> header()
    {
        final List<String> lines = CProgram.run("golden", "layout\n");
        assertEquals("end", lines.getLast(), "layout output truncated");
        final Map<String, Long> m = new LinkedHashMap<>();
        for (final String l : lines.subList(0, lines.size() - 1))
        {
            final String[] kv = l.split(" ");
            m.put(kv[0], Long.parseLong(kv[1]));
        }
        return m;
    }

    @Test
    void descriptorsMatchHeaderOffsetsAndConstants()
    {
        final Map<String, Long> java = new LinkedHashMap<>();
        java.put("mlx5_wqe_ctrl_seg.opmod_idx_opcode", (long)CtrlSeg.OPMOD_IDX_OPCODE_OFFSET);
        java.put("mlx5_wqe_ctrl_seg.qpn_ds", (long)CtrlSeg.QPN_DS_OFFSET);
        java.put("mlx5_wqe_ctrl_seg.signature", (long)CtrlSeg.SIGNATURE_OFFSET);
        java.put("mlx5_wqe_ctrl_seg.dci_stream_channel_id", (long)CtrlSeg.DCI_STREAM_CHANNEL_ID_OFFSET);
        java.put("mlx5_wqe_ctrl_seg.fm_ce_se", (long)CtrlSeg.FM_CE_SE_OFFSET);
        java.put("mlx5_wqe_ctrl_seg.imm", (long)CtrlSeg.IMM_OFFSET);
        java.put("mlx5_wqe_ctrl_seg.sizeof", (long)CtrlSeg.LENGTH);
        java.put("mlx5_wqe_raddr_seg.raddr", (long)RaddrSeg.RADDR_OFFSET);
        java.put("mlx5_wqe_raddr_seg.rkey", (long)RaddrSeg.RKEY_OFFSET);
        java.put("mlx5_wqe_raddr_seg.reserved", (long)RaddrSeg.RESERVED_OFFSET);
        java.put("mlx5_wqe_raddr_seg.sizeof", (long)RaddrSeg.LENGTH);
        java.put("mlx5_wqe_data_seg.byte_count", (long)DataSeg.BYTE_COUNT_OFFSET);
        java.put("mlx5_wqe_data_seg.lkey", (long)DataSeg.LKEY_OFFSET);
        java.put("mlx5_wqe_data_seg.addr", (long)DataSeg.ADDR_OFFSET);
        java.put("mlx5_wqe_data_seg.sizeof", (long)DataSeg.LENGTH);
        java.put("mlx5_wqe_inl_data_seg.byte_count", (long)InlineSeg.BYTE_COUNT_OFFSET);
        java.put("mlx5_wqe_inl_data_seg.sizeof", (long)InlineSeg.DATA_OFFSET);
        java.put("mlx5_wqe_atomic_seg.swap_add", (long)AtomicSeg.SWAP_ADD_OFFSET);
        java.put("mlx5_wqe_atomic_seg.compare", (long)AtomicSeg.COMPARE_OFFSET);
        java.put("mlx5_wqe_atomic_seg.sizeof", (long)AtomicSeg.LENGTH);
        java.put("masked_atomic64_cs.swap_add", (long)AtomicSeg.MASKED64_SWAP_ADD_OFFSET);
        java.put("masked_atomic64_cs.compare", (long)AtomicSeg.MASKED64_COMPARE_OFFSET);
        java.put("masked_atomic64_cs.swap_add_mask", (long)AtomicSeg.MASKED64_SWAP_ADD_MASK_OFFSET);
        java.put("masked_atomic64_cs.compare_mask", (long)AtomicSeg.MASKED64_COMPARE_MASK_OFFSET);
        java.put("masked_atomic64_cs.sizeof", (long)AtomicSeg.MASKED64_CS_LENGTH);
        java.put("mlx5_wqe_av.key", (long)DatagramSeg.KEY_OFFSET);
        java.put("mlx5_wqe_av.dqp_dct", (long)DatagramSeg.DQP_DCT_OFFSET);
        java.put("mlx5_wqe_av.stat_rate_sl", (long)DatagramSeg.STAT_RATE_SL_OFFSET);
        java.put("mlx5_wqe_av.fl_mlid", (long)DatagramSeg.FL_MLID_OFFSET);
        java.put("mlx5_wqe_av.rlid", (long)DatagramSeg.RLID_OFFSET);
        java.put("mlx5_wqe_av.reserved0", (long)DatagramSeg.RESERVED0_OFFSET);
        java.put("mlx5_wqe_av.rmac", (long)DatagramSeg.RMAC_OFFSET);
        java.put("mlx5_wqe_av.tclass", (long)DatagramSeg.TCLASS_OFFSET);
        java.put("mlx5_wqe_av.hop_limit", (long)DatagramSeg.HOP_LIMIT_OFFSET);
        java.put("mlx5_wqe_av.grh_gid_fl", (long)DatagramSeg.GRH_GID_FL_OFFSET);
        java.put("mlx5_wqe_av.rgid", (long)DatagramSeg.RGID_OFFSET);
        java.put("mlx5_wqe_av.sizeof", (long)DatagramSeg.LENGTH);
        java.put("mlx5_wqe_datagram_seg.sizeof", (long)DatagramSeg.LENGTH);
        java.put("mlx5_wqe_srq_next_seg.rsvd0", (long)SrqNextSeg.RSVD0_OFFSET);
        java.put("mlx5_wqe_srq_next_seg.next_wqe_index", (long)SrqNextSeg.NEXT_WQE_INDEX_OFFSET);
        java.put("mlx5_wqe_srq_next_seg.signature", (long)SrqNextSeg.SIGNATURE_OFFSET);
        java.put("mlx5_wqe_srq_next_seg.rsvd1", (long)SrqNextSeg.RSVD1_OFFSET);
        java.put("mlx5_wqe_srq_next_seg.sizeof", (long)SrqNextSeg.LENGTH);
        java.put("mlx5_cqe64.slid", (long)Cqe64.SLID_OFFSET);
        java.put("mlx5_cqe64.flags_rqpn", (long)Cqe64.FLAGS_RQPN_OFFSET);
        java.put("mlx5_cqe64.srqn_uidx", (long)Cqe64.SRQN_UIDX_OFFSET);
        java.put("mlx5_cqe64.imm_inval_pkey", (long)Cqe64.IMM_INVAL_PKEY_OFFSET);
        java.put("mlx5_cqe64.byte_cnt", (long)Cqe64.BYTE_CNT_OFFSET);
        java.put("mlx5_cqe64.timestamp", (long)Cqe64.TIMESTAMP_OFFSET);
        java.put("mlx5_cqe64.sop_drop_qpn", (long)Cqe64.SOP_DROP_QPN_OFFSET);
        java.put("mlx5_cqe64.wqe_counter", (long)Cqe64.WQE_COUNTER_OFFSET);
        java.put("mlx5_cqe64.signature", (long)Cqe64.SIGNATURE_OFFSET);
        java.put("mlx5_cqe64.op_own", (long)Cqe64.OP_OWN_OFFSET);
        java.put("mlx5_cqe64.sizeof", (long)Cqe64.LENGTH);
        java.put("mlx5_err_cqe.srqn", (long)Cqe64.SRQN_UIDX_OFFSET);
        java.put("mlx5_err_cqe.vendor_err_synd", (long)Cqe64.VENDOR_ERR_SYND_OFFSET);
        java.put("mlx5_err_cqe.syndrome", (long)Cqe64.SYNDROME_OFFSET);
        java.put("mlx5_err_cqe.s_wqe_opcode_qpn", (long)Cqe64.SOP_DROP_QPN_OFFSET);
        java.put("mlx5_err_cqe.wqe_counter", (long)Cqe64.WQE_COUNTER_OFFSET);
        java.put("mlx5_err_cqe.op_own", (long)Cqe64.OP_OWN_OFFSET);
        java.put("mlx5_err_cqe.sizeof", (long)Cqe64.LENGTH);
        java.put("MLX5_OPCODE_NOP", (long)Mlx5Opcode.MLX5_OPCODE_NOP);
        java.put("MLX5_OPCODE_SEND_INVAL", (long)Mlx5Opcode.MLX5_OPCODE_SEND_INVAL);
        java.put("MLX5_OPCODE_RDMA_WRITE", (long)Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE);
        java.put("MLX5_OPCODE_RDMA_WRITE_IMM", (long)Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM);
        java.put("MLX5_OPCODE_SEND", (long)Mlx5Opcode.MLX5_OPCODE_SEND);
        java.put("MLX5_OPCODE_SEND_IMM", (long)Mlx5Opcode.MLX5_OPCODE_SEND_IMM);
        java.put("MLX5_OPCODE_RDMA_READ", (long)Mlx5Opcode.MLX5_OPCODE_RDMA_READ);
        java.put("MLX5_OPCODE_ATOMIC_CS", (long)Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS);
        java.put("MLX5_OPCODE_ATOMIC_FA", (long)Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA);
        java.put("MLX5_OPCODE_ATOMIC_MASKED_CS", (long)Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS);
        java.put("MLX5_OPCODE_ATOMIC_MASKED_FA", (long)Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA);
        java.put("MLX5_OPCODE_LOCAL_INVAL", (long)Mlx5Opcode.MLX5_OPCODE_LOCAL_INVAL);
        for (final String op : new String[] {"TSO", "FMR", "CONFIG_CMD", "SET_PSV", "UMR", "TAG_MATCHING",
            "FLOW_TBL_ACCESS", "MMO"})
        {
            try
            {
                java.put("MLX5_OPCODE_" + op, (long)Mlx5Opcode.class.getField("MLX5_OPCODE_" + op).getInt(null));
            }
            catch (final ReflectiveOperationException e)
            {
                throw new AssertionError("missing MLX5_OPCODE_" + op, e);
            }
        }
        java.put("MLX5_WQE_CTRL_CQ_UPDATE", (long)CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE);
        java.put("MLX5_WQE_CTRL_SOLICITED", (long)CtrlSeg.MLX5_WQE_CTRL_SOLICITED);
        java.put("MLX5_WQE_CTRL_FENCE", (long)CtrlSeg.MLX5_WQE_CTRL_FENCE);
        java.put("MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE", (long)CtrlSeg.MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
        java.put("MLX5_SEND_WQE_BB", (long)SendRing.MLX5_SEND_WQE_BB);
        java.put("MLX5_SEND_WQE_SHIFT", (long)SendRing.MLX5_SEND_WQE_SHIFT);
        java.put("(uint32_t)MLX5_INLINE_SEG", Integer.toUnsignedLong(InlineSeg.MLX5_INLINE_SEG));
        java.put("MLX5_INVALID_LKEY", (long)DataSeg.MLX5_INVALID_LKEY);
        java.put("(uint32_t)MLX5_EXTENDED_UD_AV", Integer.toUnsignedLong(DatagramSeg.MLX5_EXTENDED_UD_AV));
        java.put("MLX5_INLINE_SCATTER_32", (long)Cqe64.MLX5_INLINE_SCATTER_32);
        java.put("MLX5_INLINE_SCATTER_64", (long)Cqe64.MLX5_INLINE_SCATTER_64);
        java.put("MLX5_CQE_OWNER_MASK", (long)Cqe64.MLX5_CQE_OWNER_MASK);
        java.put("MLX5_CQE_REQ", (long)Cqe64.MLX5_CQE_REQ);
        java.put("MLX5_CQE_RESP_WR_IMM", (long)Cqe64.MLX5_CQE_RESP_WR_IMM);
        java.put("MLX5_CQE_RESP_SEND", (long)Cqe64.MLX5_CQE_RESP_SEND);
        java.put("MLX5_CQE_RESP_SEND_IMM", (long)Cqe64.MLX5_CQE_RESP_SEND_IMM);
        java.put("MLX5_CQE_RESP_SEND_INV", (long)Cqe64.MLX5_CQE_RESP_SEND_INV);
        java.put("MLX5_CQE_RESIZE_CQ", (long)Cqe64.MLX5_CQE_RESIZE_CQ);
        java.put("MLX5_CQE_NO_PACKET", (long)Cqe64.MLX5_CQE_NO_PACKET);
        java.put("MLX5_CQE_SIG_ERR", (long)Cqe64.MLX5_CQE_SIG_ERR);
        java.put("MLX5_CQE_REQ_ERR", (long)Cqe64.MLX5_CQE_REQ_ERR);
        java.put("MLX5_CQE_RESP_ERR", (long)Cqe64.MLX5_CQE_RESP_ERR);
        java.put("MLX5_CQE_INVALID", (long)Cqe64.MLX5_CQE_INVALID);
        java.put("MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
        java.put("MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
        java.put("MLX5_CQE_SYNDROME_LOCAL_PROT_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
        java.put("MLX5_CQE_SYNDROME_WR_FLUSH_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
        java.put("MLX5_CQE_SYNDROME_MW_BIND_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_MW_BIND_ERR);
        java.put("MLX5_CQE_SYNDROME_BAD_RESP_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_BAD_RESP_ERR);
        java.put("MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR);
        java.put("MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
        java.put("MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
        java.put("MLX5_CQE_SYNDROME_REMOTE_OP_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
        java.put("MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
        java.put("MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
        java.put("MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR", (long)Cqe64.MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR);
        for (final WcStatus s : WcStatus.values())
        {
            java.put("IBV_WC_" + s.name(), (long)s.code());
        }

        final Map<String, Long> c = header();
        assertEquals(c.keySet(), java.keySet(), "every header value must have a Java counterpart and vice versa");
        for (final Map.Entry<String, Long> e : c.entrySet())
        {
            assertEquals(e.getValue(), java.get(e.getKey()), e.getKey());
        }
        assertTrue(c.size() > 100, "layout probe printed too little: " + c.size());
    }
}
