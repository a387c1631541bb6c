// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

/**
 * Names of the numbers in WQEs and CQEs, as rdma-core v44 spells them (providers/mlx5/mlx5dv.h unless noted),
 * without the common prefix (MLX5_OPCODE_, MLX5_CQE_SYNDROME_, ...). Written from the header's facts, independent of
 * mlx5j's own encoders, so that a dump judges an encoder rather than repeating it.
 */
final class PrmNames
{
    // fm_ce_se of struct mlx5_wqe_ctrl_seg: fm bits 7:5, ce bits 3:2, se bit 1 (PRM "Send WQE Control Segment")
    static final int MLX5_WQE_CTRL_CQ_UPDATE = 2 << 2;
    static final int MLX5_WQE_CTRL_SOLICITED = 1 << 1;
    static final int MLX5_WQE_CTRL_FENCE = 4 << 5;
    static final int MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE = 1 << 5;
    /** byte_count of struct mlx5_wqe_inline_seg: bit 31 marks inline data. */
    static final int MLX5_INLINE_SEG = 0x80000000;
    /** lkey of the data segment that ends a receive WQE shorter than its stride (mlx5dv.h MLX5_INVALID_LKEY). */
    static final int MLX5_INVALID_LKEY = 0x100;
    /** dqp_dct of struct mlx5_wqe_av: bit 31, the extended address vector. */
    static final int MLX5_EXTENDED_UD_AV = 0x80000000;
    /** cs_flags of struct mlx5_wqe_eth_seg. */
    static final int MLX5_ETH_WQE_L3_CSUM = 1 << 6;
    static final int MLX5_ETH_WQE_L4_CSUM = 1 << 7;
    /** Bit 15 of the be16 at byte 12 of the Ethernet segment: insert a VLAN tag (Linux MLX5_ETH_WQE_INSERT_VLAN). */
    static final int MLX5_ETH_WQE_INSERT_VLAN = 0x8000;

    static final int MLX5_OPCODE_ATOMIC_CS = 0x11;
    static final int MLX5_OPCODE_ATOMIC_FA = 0x12;
    static final int MLX5_OPCODE_ATOMIC_MASKED_CS = 0x14;
    static final int MLX5_OPCODE_ATOMIC_MASKED_FA = 0x15;
    static final int MLX5_OPCODE_RDMA_WRITE = 0x08;
    static final int MLX5_OPCODE_RDMA_WRITE_IMM = 0x09;
    static final int MLX5_OPCODE_RDMA_READ = 0x10;
    static final int MLX5_OPCODE_TSO = 0x0e;

    static final int MLX5_CQE_REQ = 0;
    static final int MLX5_CQE_REQ_ERR = 13;
    static final int MLX5_CQE_RESP_ERR = 14;

    private PrmNames()
    {
    }

    /** enum MLX5_OPCODE_* of mlx5dv.h (send WQE opcodes). */
    static String opcode(final int op)
    {
        return switch (op)
        {
            case 0x00 -> "NOP";
            case 0x01 -> "SEND_INVAL";
            case 0x08 -> "RDMA_WRITE";
            case 0x09 -> "RDMA_WRITE_IMM";
            case 0x0a -> "SEND";
            case 0x0b -> "SEND_IMM";
            case 0x0e -> "TSO";
            case 0x10 -> "RDMA_READ";
            case 0x11 -> "ATOMIC_CS";
            case 0x12 -> "ATOMIC_FA";
            case 0x14 -> "ATOMIC_MASKED_CS";
            case 0x15 -> "ATOMIC_MASKED_FA";
            case 0x19 -> "FMR";
            case 0x1b -> "LOCAL_INVAL";
            case 0x1f -> "CONFIG_CMD";
            case 0x20 -> "SET_PSV";
            case 0x25 -> "UMR";
            case 0x28 -> "TAG_MATCHING";
            case 0x29 -> "ENHANCED_MPSW";
            case 0x2c -> "FLOW_TBL_ACCESS";
            case 0x2f -> "MMO";
            default -> "UNKNOWN(" + Bytes.hex8(op) + ")";
        };
    }

    /**
     * fm_ce_se as flags, highest bit first: the fence mode (fm, bits 7:5: 4 FENCE, 1 INITIATOR_SMALL_FENCE, 3
     * STRONG_ORDERING as the PRM names it, any other value FM(n)), the completion mode (ce, bits 3:2: 2 CQ_UPDATE,
     * others CE(n)), SOLICITED (se, bit 1), and bit 0 as BIT0 should it be set. 0 reads "0".
     */
    static String fmCeSe(final int v)
    {
        final StringBuilder sb = new StringBuilder();
        final int fm = (v >>> 5) & 7;
        final int ce = (v >>> 2) & 3;
        switch (fm)
        {
            case 0 -> { }
            case 4 -> sb.append("FENCE");
            case 1 -> sb.append("INITIATOR_SMALL_FENCE");
            case 3 -> sb.append("STRONG_ORDERING");
            default -> sb.append("FM(").append(fm).append(')');
        }
        if (ce == 2)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("CQ_UPDATE");
        }
        else if (ce != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("CE(").append(ce).append(')');
        }
        if ((v & MLX5_WQE_CTRL_SOLICITED) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("SOLICITED");
        }
        if ((v & 1) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("BIT0");
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }

    /** The CQE opcode, op_own bits 7:4 (MLX5_CQE_*). */
    static String cqeOpcode(final int op)
    {
        return switch (op)
        {
            case 0 -> "REQ";
            case 1 -> "RESP_WR_IMM";
            case 2 -> "RESP_SEND";
            case 3 -> "RESP_SEND_IMM";
            case 4 -> "RESP_SEND_INV";
            case 5 -> "RESIZE_CQ";
            case 6 -> "NO_PACKET";
            case 12 -> "SIG_ERR";
            case 13 -> "REQ_ERR";
            case 14 -> "RESP_ERR";
            case 15 -> "INVALID";
            default -> "UNKNOWN(" + op + ")";
        };
    }

    /** The syndrome of struct mlx5_err_cqe (MLX5_CQE_SYNDROME_*). */
    static String syndrome(final int s)
    {
        return switch (s)
        {
            case 0x01 -> "LOCAL_LENGTH_ERR";
            case 0x02 -> "LOCAL_QP_OP_ERR";
            case 0x04 -> "LOCAL_PROT_ERR";
            case 0x05 -> "WR_FLUSH_ERR";
            case 0x06 -> "MW_BIND_ERR";
            case 0x10 -> "BAD_RESP_ERR";
            case 0x11 -> "LOCAL_ACCESS_ERR";
            case 0x12 -> "REMOTE_INVAL_REQ_ERR";
            case 0x13 -> "REMOTE_ACCESS_ERR";
            case 0x14 -> "REMOTE_OP_ERR";
            case 0x15 -> "TRANSPORT_RETRY_EXC_ERR";
            case 0x16 -> "RNR_RETRY_EXC_ERR";
            case 0x22 -> "REMOTE_ABORTED_ERR";
            default -> "UNKNOWN(" + Bytes.hex8(s) + ")";
        };
    }

    /** hds_ip_ext of struct mlx5_cqe64: MLX5_CQE_L2_OK 1, L3_OK 2, L4_OK 4. */
    static String csumOk(final int v)
    {
        final StringBuilder sb = new StringBuilder();
        if ((v & 1) != 0)
        {
            sb.append("L2_OK");
        }
        if ((v & 2) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("L3_OK");
        }
        if ((v & 4) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("L4_OK");
        }
        if ((v & ~7) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append(Bytes.hex8(v & ~7));
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }

    /** MLX5_CQE_L3_HDR_TYPE_* (l4_hdr_type_etc bits 3:2). */
    static String l3HdrType(final int v)
    {
        return switch (v)
        {
            case 0 -> "NONE";
            case 1 -> "IPV6";
            case 2 -> "IPV4";
            default -> "L3(" + v + ")";
        };
    }

    /** CQE_L4_HDR_TYPE_* (l4_hdr_type_etc bits 6:4; PRM "CQE format", l4_hdr_type). */
    static String l4HdrType(final int v)
    {
        return switch (v)
        {
            case 0 -> "NONE";
            case 1 -> "TCP";
            case 2 -> "UDP";
            case 3 -> "TCP_ACK_NO_DATA";
            case 4 -> "TCP_ACK_AND_DATA";
            default -> "L4(" + v + ")";
        };
    }

    /** cs_flags of the Ethernet segment. */
    static String csFlags(final int v)
    {
        final StringBuilder sb = new StringBuilder();
        if ((v & MLX5_ETH_WQE_L3_CSUM) != 0)
        {
            sb.append("L3_CSUM");
        }
        if ((v & MLX5_ETH_WQE_L4_CSUM) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append("L4_CSUM");
        }
        if ((v & 0x3f) != 0)
        {
            sb.append(sb.isEmpty() ? "" : "|").append(Bytes.hex8(v & 0x3f));
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }
}
