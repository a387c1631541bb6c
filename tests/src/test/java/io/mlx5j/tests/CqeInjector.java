// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.CqRing;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Writes CQEs into a CQ ring the way the device does (with MLX5EMU_ENGINE=off nothing else writes there), so that the
 * parity tests can retire WQEs on both twins: libmlx5 then polls its CQ with ibv_poll_cq, mlx5j with CqPoller.
 * Only the fields a REQ / RESP_SEND CQE carries are written (rdma-core v44 mlx5dv.h struct mlx5_cqe64); the entry is
 * zeroed first and op_own, with the owner bit of the pass, is stored last.
 */
final class CqeInjector
{
    static final int MLX5_CQE_REQ = 0;
    static final int MLX5_CQE_RESP_SEND = 2;

    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment buf;
    private final int cqeCnt;
    private final int cqeSize;
    private final int log;
    private int produced;

    CqeInjector(final CompletionQueue cq)
    {
        final CqRing ring = cq.ring();
        this.buf = ring.buf();
        this.cqeCnt = ring.cqeCnt();
        this.cqeSize = ring.cqeSize();
        this.log = Integer.numberOfTrailingZeros(cqeCnt);
    }

    /** A successful requester CQE for the WQE whose first WQEBB is {@code wqeCounter}. */
    void req(final int qpn, final int uidx, final int wqeOpcode, final int wqeCounter, final int byteCnt)
    {
        put(MLX5_CQE_REQ, qpn, uidx, wqeOpcode, wqeCounter, byteCnt, 0);
    }

    /** A RESP_SEND CQE (receive completion) of {@code byteCnt} bytes from {@code srcQp}. */
    void respSend(final int qpn, final int uidx, final int wqeCounter, final int byteCnt, final int srcQp)
    {
        put(MLX5_CQE_RESP_SEND, qpn, uidx, 0, wqeCounter, byteCnt, srcQp);
    }

    /**
     * An error CQE (struct mlx5_err_cqe: vendor_err_synd at 0x36, syndrome at 0x37) of {@code opcode} (REQ_ERR 13,
     * RESP_ERR 14) for the WQE at {@code wqeCounter}; syndrome 5 is WR_FLUSH_ERR.
     */
    void error(final int opcode, final int qpn, final int wqeCounter, final int syndrome)
    {
        put(opcode, qpn, 0, 0, wqeCounter, 0, 0, syndrome);
    }

    /** A CQE of any opcode (for example one mlx5j does not decode) with only sop_drop_qpn and wqe_counter set. */
    void raw(final int opcode, final int qpn, final int wqeCounter)
    {
        put(opcode, qpn, 0, 0, wqeCounter, 0, 0, 0);
    }

    private void put(final int opcode, final int qpn, final int uidx, final int wqeOpcode, final int wqeCounter,
        final int byteCnt, final int srcQp)
    {
        put(opcode, qpn, uidx, wqeOpcode, wqeCounter, byteCnt, srcQp, 0);
    }

    private void put(final int opcode, final int qpn, final int uidx, final int wqeOpcode, final int wqeCounter,
        final int byteCnt, final int srcQp, final int syndrome)
    {
        final long at = (long) (produced & (cqeCnt - 1)) * cqeSize;
        final long c = at + cqeSize - 64;
        buf.asSlice(at, cqeSize).fill((byte) 0);
        buf.set(BE32, c + 0x18, srcQp & 0xffffff);                 // flags_rqpn
        buf.set(BE32, c + 0x20, uidx & 0xffffff);                  // srqn_uidx: the user index under CQE version 1
        buf.set(BE32, c + 0x2c, byteCnt);                          // byte_cnt
        buf.set(ValueLayout.JAVA_BYTE, c + 0x37, (byte) syndrome);       // syndrome (error CQEs; timestamp byte else)
        buf.set(BE32, c + 0x38, (wqeOpcode << 24) | (qpn & 0xffffff)); // sop_drop_qpn
        buf.set(BE16, c + 0x3c, (short) wqeCounter);               // wqe_counter
        final int owner = (produced >>> log) & 1;
        java.lang.invoke.VarHandle.releaseFence();
        buf.set(ValueLayout.JAVA_BYTE, c + 0x3f, (byte) ((opcode << 4) | owner));
        produced++;
    }
}
