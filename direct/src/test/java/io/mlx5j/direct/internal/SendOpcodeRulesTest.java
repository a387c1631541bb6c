// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.verbs.QpType;

import org.junit.jupiter.api.Test;

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
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The opcode table against the IB transport rules written out by hand per QP type (IBTA vol. 1 table "Service
 * types and operations": RDMA READ and atomics on RC only; RDMA WRITE on RC and UC; UD sends only; libmlx5 refuses
 * READ and atomics with IBV_SEND_INLINE), so a wrong table row fails here and not only on a device.
 */
class SendOpcodeRulesTest
{
    private static long bits(final int... opcodes)
    {
        long b = 0;
        for (final int op : opcodes)
        {
            b |= 1L << op;
        }
        return b;
    }

    @Test
    void fastPathTakesOnlyOperandFreeOpcodesOfConnectedQps()
    {
        final long send = bits(MLX5_OPCODE_NOP, MLX5_OPCODE_SEND, MLX5_OPCODE_SEND_IMM, MLX5_OPCODE_SEND_INVAL,
            MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE_IMM);
        assertEquals(send | bits(MLX5_OPCODE_RDMA_READ), SendOpcodeRules.fastOpcodes(QpType.RC, false, 1));
        assertEquals(send, SendOpcodeRules.fastOpcodes(QpType.RC, true, 1), "READ cannot be inline");
        assertEquals(send, SendOpcodeRules.fastOpcodes(QpType.UC, false, 4));
        assertEquals(send, SendOpcodeRules.fastOpcodes(QpType.UC, true, 0));
        assertEquals(bits(MLX5_OPCODE_NOP), SendOpcodeRules.fastOpcodes(QpType.RC, false, 0), "no SGE: NOP only");
        for (final boolean inline : new boolean[] {false, true})
        {
            assertEquals(bits(MLX5_OPCODE_NOP), SendOpcodeRules.fastOpcodes(QpType.DCI, inline, 4),
                "a DCI names its target per WQE: staging form only");
            assertEquals(bits(MLX5_OPCODE_NOP), SendOpcodeRules.fastOpcodes(QpType.UD, inline, 4),
                "UD needs a datagram segment");
            assertEquals(bits(MLX5_OPCODE_NOP), SendOpcodeRules.fastOpcodes(QpType.RAW_PACKET, inline, 4),
                "raw packet QPs post through RawSendQueue");
        }
    }

    @Test
    void everyOpcodeIsAcceptedExactlyOnTheQpTypesThatCarryIt()
    {
        final int none = SendOpcodeRules.NO_OPERANDS;
        // opcode, needs remote, operands, carried on RC / UC / UD / DCI / DCT
        final Object[][] rows = {
            {MLX5_OPCODE_NOP, false, none, true, true, true, true, false},
            {MLX5_OPCODE_SEND, false, none, true, true, true, true, false},
            {MLX5_OPCODE_SEND_IMM, false, none, true, true, true, true, false},
            {MLX5_OPCODE_SEND_INVAL, false, none, true, true, false, false, false},
            {MLX5_OPCODE_RDMA_WRITE, true, none, true, true, false, true, false},
            {MLX5_OPCODE_RDMA_WRITE_IMM, true, none, true, true, false, true, false},
            {MLX5_OPCODE_RDMA_READ, true, none, true, false, false, true, false},
            {MLX5_OPCODE_ATOMIC_CS, true, SendOpcodeRules.CAS, true, false, false, true, false},
            {MLX5_OPCODE_ATOMIC_FA, true, SendOpcodeRules.FAA, true, false, false, true, false},
            {MLX5_OPCODE_ATOMIC_MASKED_CS, true, SendOpcodeRules.MASKED_CAS_64, true, false, false, false, false},
            {MLX5_OPCODE_ATOMIC_MASKED_CS, true, SendOpcodeRules.MASKED_CAS_32, true, false, false, false, false},
            {MLX5_OPCODE_ATOMIC_MASKED_FA, true, SendOpcodeRules.MASKED_FAA_64, true, false, false, false, false},
            {MLX5_OPCODE_ATOMIC_MASKED_FA, true, SendOpcodeRules.MASKED_FAA_32, true, false, false, false, false},
        };
        final QpType[] types = {QpType.RC, QpType.UC, QpType.UD, QpType.DCI, QpType.DCT};
        for (final Object[] row : rows)
        {
            final int op = (int) row[0];
            final boolean remote = (boolean) row[1];
            final int operands = (int) row[2];
            for (int t = 0; t < types.length; t++)
            {
                final QpType type = types[t];
                final boolean ud = type == QpType.UD || type == QpType.DCI;   // a destination staged
                if ((boolean) row[3 + t])
                {
                    assertDoesNotThrow(() -> SendOpcodeRules.check(type, "qp", op, false, remote, operands, ud),
                        "opcode 0x" + Integer.toHexString(op) + " on " + type);
                }
                else
                {
                    assertThrows(IllegalArgumentException.class,
                        () -> SendOpcodeRules.check(type, "qp", op, false, remote, operands, ud),
                        "opcode 0x" + Integer.toHexString(op) + " on " + type);
                }
            }
            // the remote address must be there exactly when the opcode needs it
            assertThrows(IllegalArgumentException.class,
                () -> SendOpcodeRules.check(QpType.RC, "qp", op, false, !remote, operands, false));
        }
    }

    @Test
    void messagesNameWhatIsWrong()
    {
        assertMessage("without atomic operands", () -> SendOpcodeRules.check(QpType.RC, "qp", MLX5_OPCODE_ATOMIC_CS,
            false, true, SendOpcodeRules.NO_OPERANDS, false));
        assertMessage("with operands of another atomic", () -> SendOpcodeRules.check(QpType.RC, "qp",
            MLX5_OPCODE_ATOMIC_CS, false, true, SendOpcodeRules.FAA, false));
        assertMessage("with operands of another atomic", () -> SendOpcodeRules.check(QpType.RC, "qp",
            MLX5_OPCODE_SEND, false, false, SendOpcodeRules.CAS, false));
        assertMessage(" inline", () -> SendOpcodeRules.check(QpType.RC, "qp", MLX5_OPCODE_RDMA_READ, true, true,
            SendOpcodeRules.NO_OPERANDS, false));
        assertMessage("without destination(ah, qpn, qkey)", () -> SendOpcodeRules.check(QpType.UD, "qp",
            MLX5_OPCODE_SEND, false, false, SendOpcodeRules.NO_OPERANDS, false));
        assertMessage("with a UD destination", () -> SendOpcodeRules.check(QpType.RC, "qp", MLX5_OPCODE_SEND,
            false, false, SendOpcodeRules.NO_OPERANDS, true));
        assertMessage("RawSendQueue.of(qp, mode)", () -> SendOpcodeRules.check(QpType.RAW_PACKET, "qp",
            MLX5_OPCODE_SEND, false, false, SendOpcodeRules.NO_OPERANDS, false));
        assertMessage("cannot post mlx5 opcode 0x1f", () -> SendOpcodeRules.check(QpType.RC, "qp", 0x1f, false,
            false, SendOpcodeRules.NO_OPERANDS, false));
        assertDoesNotThrow(() -> SendOpcodeRules.check(QpType.RAW_PACKET, "qp", MLX5_OPCODE_NOP, false, false,
            SendOpcodeRules.NO_OPERANDS, false));
    }

    private static void assertMessage(final String part, final org.junit.jupiter.api.function.Executable call)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, call);
        assertTrue(ex.getMessage().contains(part), ex.getMessage());
    }
}
