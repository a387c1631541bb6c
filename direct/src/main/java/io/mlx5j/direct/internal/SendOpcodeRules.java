// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.direct.SendFlags;
import io.mlx5j.verbs.QpType;

import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_NOP;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_READ;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND_IMM;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND_INVAL;

/**
 * Which send opcodes each QP type carries and what a work request of each must bring: one table row per mlx5 opcode
 * (the IB transport's rules as libmlx5's _mlx5_post_send applies them: RDMA READ and atomics only on RC, RDMA WRITE
 * and SEND with invalidate not on UD, READ and atomics never inline; rdma-core v44 providers/mlx5/qp.c). The staging
 * path checks every WR against it ({@link #check}); the one-call fast path takes exactly the opcodes the table lets
 * through with one gather entry or inline piece and no operands ({@link #fastOpcodes}), so the two cannot disagree.
 *
 * <p>Thread model: static; any thread.
 */
public final class SendOpcodeRules
{
    /** The flags SendQueue accepts (RawSendQueue adds IP_CSUM); both posting paths check against it. */
    public static final int SEND_QUEUE_FLAGS = SendFlags.FENCE | SendFlags.SIGNALED | SendFlags.SOLICITED |
        SendFlags.INLINE | SendFlags.RING;

    // Operands a staged WR carries (SendStaging.operands): which atomic segment follows the remote address.
    /** Operand kind: no atomic operands staged. */
    public static final int NO_OPERANDS = 0;
    /** Operand kind: compare and swap. */
    public static final int CAS = 1;
    /** Operand kind: fetch and add. */
    public static final int FAA = 2;
    /** Operand kind: masked 64-bit compare and swap. */
    public static final int MASKED_CAS_64 = 3;
    /** Operand kind: masked 64-bit fetch and add. */
    public static final int MASKED_FAA_64 = 4;
    /** Operand kind: masked 32-bit compare and swap. */
    public static final int MASKED_CAS_32 = 5;
    /** Operand kind: masked 32-bit fetch and add. */
    public static final int MASKED_FAA_32 = 6;

    // One row: the QP types that carry the opcode, then what the WR needs.
    private static final int ON_RC = 1;
    private static final int ON_UC = 1 << 1;
    private static final int ON_UD = 1 << 2;
    private static final int ON_RAW_PACKET = 1 << 3;
    /** DC initiators: the RC operations but SEND with invalidate (libmlx5's DCI send ops; Linux mlx5 DC). */
    private static final int ON_DCI = 1 << 6;
    /** Needs {@code remote(raddr, rkey)}: a raddr segment. */
    private static final int REMOTE = 1 << 4;
    /** Cannot be posted with SendFlags.INLINE (the NIC writes into the gather list). */
    private static final int NOT_INLINE = 1 << 5;
    /** Bits 8..: the operand class the WR must bring (0: none). */
    private static final int OPERAND_SHIFT = 8;
    private static final int CLASS_CAS = 1;
    private static final int CLASS_FAA = 2;
    private static final int CLASS_MASKED_CAS = 3;
    private static final int CLASS_MASKED_FAA = 4;

    /** Indexed by mlx5 opcode (5 bits); 0: not a send opcode mlx5j posts. */
    private static final int[] RULES = new int[32];

    static
    {
        final int anyType = ON_RC | ON_UC | ON_UD;
        row(MLX5_OPCODE_NOP, anyType | ON_RAW_PACKET | ON_DCI, 0);
        row(MLX5_OPCODE_SEND, anyType | ON_DCI, 0);
        row(MLX5_OPCODE_SEND_IMM, anyType | ON_DCI, 0);
        row(MLX5_OPCODE_SEND_INVAL, ON_RC | ON_UC, 0);
        row(MLX5_OPCODE_RDMA_WRITE, ON_RC | ON_UC | ON_DCI | REMOTE, 0);
        row(MLX5_OPCODE_RDMA_WRITE_IMM, ON_RC | ON_UC | ON_DCI | REMOTE, 0);
        row(MLX5_OPCODE_RDMA_READ, ON_RC | ON_DCI | REMOTE | NOT_INLINE, 0);
        row(MLX5_OPCODE_ATOMIC_CS, ON_RC | ON_DCI | REMOTE | NOT_INLINE, CLASS_CAS);
        row(MLX5_OPCODE_ATOMIC_FA, ON_RC | ON_DCI | REMOTE | NOT_INLINE, CLASS_FAA);
        row(MLX5_OPCODE_ATOMIC_MASKED_CS, ON_RC | REMOTE | NOT_INLINE, CLASS_MASKED_CAS);
        row(MLX5_OPCODE_ATOMIC_MASKED_FA, ON_RC | REMOTE | NOT_INLINE, CLASS_MASKED_FAA);
    }

    private SendOpcodeRules()
    {
    }

    private static void row(final int opcode, final int bits, final int operandClass)
    {
        RULES[opcode] = bits | (operandClass << OPERAND_SHIFT);
    }

    private static int typeBit(final QpType type)
    {
        return switch (type)
        {
            case RC -> ON_RC;
            case UC -> ON_UC;
            case UD -> ON_UD;
            case RAW_PACKET -> ON_RAW_PACKET;
            case XRC_SEND -> ON_RC;   // the RC opcodes, behind the XRC segment
            case DCI -> ON_DCI;
            case DCT -> 0;      // a DC target sends nothing
            case XRC_RECV -> 0;       // a TGT QP has no send queue (QueuePair.rings refuses)
        };
    }

    private static int operandClass(final int operands)
    {
        return switch (operands)
        {
            case CAS -> CLASS_CAS;
            case FAA -> CLASS_FAA;
            case MASKED_CAS_64, MASKED_CAS_32 -> CLASS_MASKED_CAS;
            case MASKED_FAA_64, MASKED_FAA_32 -> CLASS_MASKED_FAA;
            default -> 0;
        };
    }

    private static int rule(final int opcode)
    {
        return opcode >= 0 && opcode < RULES.length ? RULES[opcode] : 0;
    }

    /**
     * Bit n set: a QP of {@code type} may post opcode n through the one-call fast path, which writes ctrl, an
     * optional raddr and one data (or, with {@code inline}, one inline) segment: the rows that need no operands and
     * no address vector (UD and raw packet QPs take only NOP there), and that need a gather entry only if the QP has
     * send SGEs.
     *
     * @param type the QP type
     * @param inline whether the WR is INLINE
     * @param maxSge gather entries per WQE the QP was granted
     * @return the opcode bit set
     */
    public static long fastOpcodes(final QpType type, final boolean inline, final int maxSge)
    {
        long ops = 1L << MLX5_OPCODE_NOP;
        if (type == QpType.UD || type == QpType.RAW_PACKET || type == QpType.DCI || type == QpType.DCT
            || (!inline && maxSge < 1))
        {
            return ops;
        }
        final int on = typeBit(type);
        for (int opcode = 0; opcode < RULES.length; opcode++)
        {
            final int r = RULES[opcode];
            if ((r & on) != 0 && (r >>> OPERAND_SHIFT) == 0 && !(inline && (r & NOT_INLINE) != 0))
            {
                ops |= 1L << opcode;
            }
        }
        return ops;
    }

    /**
     * Throws {@link IllegalArgumentException} naming everything wrong with a staged WR of {@code opcode} on a QP
     * of {@code type} (named {@code qp} in the message): an opcode the QP type does not carry, INLINE where the NIC
     * must write, a remote address missing or superfluous, atomic operands missing or not the opcode's, a UD WR
     * without a destination, or a destination on a connected QP.
     *
     * @param type the QP type
     * @param qp the QP, for the message
     * @param opcode the MLX5 opcode
     * @param inline whether the WR is INLINE
     * @param remote whether a remote address was staged
     * @param operands the atomic operand kind staged
     * @param hasAv whether a UD destination was staged
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void check(final QpType type, final Object qp, final int opcode, final boolean inline,
        final boolean remote, final int operands, final boolean hasAv)
    {
        if (type == QpType.RAW_PACKET && opcode != MLX5_OPCODE_NOP)
        {
            throw new IllegalArgumentException("a RAW_PACKET QP sends frames, with an Ethernet segment in every WQE: "
                + "post them through RawSendQueue.of(" + qp + ", mode)");
        }
        final int r = rule(opcode);
        final boolean carried = (r & typeBit(type)) != 0 && !(inline && (r & NOT_INLINE) != 0);
        final boolean needsRemote = (r & REMOTE) != 0;
        final int wantOperands = r >>> OPERAND_SHIFT;
        final int haveOperands = operandClass(operands);
        final boolean datagram = type == QpType.UD || type == QpType.DCI;
        final boolean udOk = !datagram || opcode == MLX5_OPCODE_NOP || hasAv;
        final boolean avMisuse = !datagram && hasAv;
        if (carried && needsRemote == remote && wantOperands == haveOperands && udOk && !avMisuse)
        {
            return;
        }
        throw new IllegalArgumentException("cannot post mlx5 opcode 0x" + Integer.toHexString(opcode) + " on " +
            qp + (inline ? " inline" : "") + (needsRemote && !remote ? " without remote(raddr, rkey)" : "") +
            (!needsRemote && remote ? " with a remote address" : "") +
            (!udOk ? (type == QpType.DCI ? " without dcDestination(ah, dctn, dcKey)"
                : " without destination(ah, qpn, qkey)") : "") + (avMisuse ? " with a UD destination" : "") +
            (wantOperands != 0 && haveOperands == 0 ? " without atomic operands" : "") +
            (haveOperands != 0 && wantOperands != haveOperands ? " with operands of another atomic" : ""));
    }
}
