// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.MemorySegment;

import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.doorbell.SendDoorbell;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.InlineSeg;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WqeWriter;

/**
 * The mlx5j send path composed directly from its parts over {@code QueuePair.rings()}: {@link SendRing} (ring
 * bookkeeping), {@link WqeWriter} (segment stores), {@link SendDoorbell} (doorbell record, fences, BlueFlame or
 * 8-byte doorbell). This is the hot path of {@code io.mlx5j.direct.SendQueue}, with the same method shapes
 * (the composed form of the direct API); the benchmarks use it where the product class is not available.
 * <p>
 * Confinement: one posting thread.
 */
final class ComposedSendQueue
{
    static final int SIGNALED = 1;
    static final int INLINE = 8;
    /** All of memory: inline payloads are given by address, as in the product API. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final MemorySegment ring;
    private final int qpn;
    private final SendRing sq;
    private final WqeWriter writer;
    private final SendDoorbell doorbell;
    private int pending;

    ComposedSendQueue(final QpRing rings, final DoorbellMode mode)
    {
        this.ring = rings.sq();
        this.qpn = rings.qpn();
        this.sq = new SendRing(rings.sqWqeCnt());
        this.writer = new WqeWriter(4);
        this.doorbell = new SendDoorbell(ring, new DoorbellRecord(rings.dbrec()),
            new BlueFlameRegister(rings.bfReg(), rings.bfSize(), false), mode);
    }

    SendRing sendQueue()
    {
        return sq;
    }

    boolean rdmaWrite(final long wrId, final long laddr, final int lkey, final int len, final long raddr,
        final int rkey, final int flags)
    {
        final long ctrl = sq.claim(1);
        if (ctrl == SendRing.NO_SPACE)
        {
            return false;
        }
        final int ds = writer.wrap(ring, ctrl)
            .raddr(raddr, rkey)
            .data(len, lkey, laddr)
            .ctrl(0, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, sq.wqeIndex(), qpn, fmCeSe(flags), 0)
            .ds();
        sq.commit(ds, wrId);
        pending++;
        return true;
    }

    boolean send(final long wrId, final long laddr, final int lkey, final int len, final int flags)
    {
        final boolean inline = (flags & INLINE) != 0;
        final int ds = 1 + (inline ? InlineSeg.ds(len) : 1);
        final long ctrl = sq.claim(SendRing.numWqebb(ds));
        if (ctrl == SendRing.NO_SPACE)
        {
            return false;
        }
        writer.wrap(ring, ctrl);
        if (inline)
        {
            writer.inline(ALL, laddr, len);
        }
        else
        {
            writer.data(len, lkey, laddr);
        }
        writer.ctrl(0, Mlx5Opcode.MLX5_OPCODE_SEND, sq.wqeIndex(), qpn, fmCeSe(flags), 0);
        sq.commit(writer.ds(), wrId);
        pending++;
        return true;
    }

    /** Posts a ctrl-only NOP without ringing: keeps one WQE outstanding for the poll benchmarks. */
    boolean nop(final long wrId, final int flags)
    {
        final long ctrl = sq.claim(1);
        if (ctrl == SendRing.NO_SPACE)
        {
            return false;
        }
        final int ds = writer.wrap(ring, ctrl)
            .ctrl(0, Mlx5Opcode.MLX5_OPCODE_NOP, sq.wqeIndex(), qpn, fmCeSe(flags), 0)
            .ds();
        sq.commit(ds, wrId);
        pending++;
        return true;
    }

    /** One doorbell for everything posted since the last ring; returns the number of WQEs rung. */
    int ring()
    {
        final int n = pending;
        if (n == 0)
        {
            return 0;
        }
        pending = 0;
        doorbell.ring(n, sq.lastCtrlOffset(), sq.lastDs(), sq.producerCounter());
        return n;
    }

    private static int fmCeSe(final int flags)
    {
        return (flags & SIGNALED) != 0 ? CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE : 0;
    }
}
