// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.memory.RingStores;
import io.mlx5j.verbs.QpType;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.InlineSeg;
import io.mlx5j.wqe.RaddrSeg;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WqeWriter;
import io.mlx5j.wqe.XrcSeg;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_NOP;

/**
 * The one-call posts' fast path: a WQE of ctrl, optional raddr and one data or inline segment, claimed and encoded
 * straight into the ring with no staging. It writes the same bytes as the staging path (the parity tests post
 * through both) and declines, writing and claiming nothing, whenever the staging path has something to say: an
 * opcode or flag this QP cannot take ({@link SendOpcodeRules#fastOpcodes}), inline data too large or in the null
 * page, a WQE over the size limit, or a full ring. The caller then posts through the staging path, which throws the
 * error, or stages the WR and reports the full ring.
 * <p>
 * The ctrl segment is not written here: the queue writes it last, with its signaling state
 * ({@link SendRingCore#commit}). Each encoder stays under C2's inlining limit (FreqInlineSize, 325
 * bytecodes): as one 424-bytecode method the fast path was "hot method too big" (-XX:+PrintInlining) and every post
 * paid a call; split, each one-call method compiles as one unit with its constant arguments (opcode, remote) folded.
 * <p>
 * The stores and the inline payload copy go through {@link RingStores} at {@code base + offset}, where {@code base}
 * is the ring's address that {@link io.mlx5j.direct.SendQueue}'s liveness check of this post returned and every offset
 * lies in the claimed WQEBBs (masked where it can pass the ring end): the ring segment's bounds and session checks on
 * each store are what the post saves (SendQueue's close rule keeps it safe).
 * Confined to the queue's thread.
 */
public final class FastSendEncoder
{
    private final long ringMask;
    private final SendRing sq;
    private final int maxDs;
    private final int maxInline;
    /** Bit n set: mlx5 opcode n may take the fast path with a gather entry, resp. inline. */
    private final long fastGather;
    private final long fastInline;
    /** Where the last accepted WQE's ctrl segment goes. */
    private long ctrl;
    /** XRC_SEND: every WQE but NOP carries the XRC segment after ctrl. */
    private final boolean xrc;
    /** XRC_SEND: the remote XRC SRQ number; -1 until set (the encoder then declines, and staging says why). */
    public int xrcSrqn = -1;

    /**
     * An encoder for one send queue; confined to its posting thread.
     *
     * @param ring the send ring
     * @param sq the ring's counters
     * @param writer the queue's WQE writer
     * @param type the QP type
     * @param maxSge gather entries per WQE the QP was granted
     * @param maxInline inline bytes per WQE the QP was granted
     */
    public FastSendEncoder(final MemorySegment ring, final SendRing sq, final WqeWriter writer, final QpType type,
        final int maxSge, final int maxInline)
    {
        this.ringMask = ring.byteSize() - 1;
        this.sq = sq;
        this.maxDs = writer.maxDs();
        this.maxInline = maxInline;
        this.fastGather = SendOpcodeRules.fastOpcodes(type, false, maxSge);
        this.fastInline = SendOpcodeRules.fastOpcodes(type, true, maxSge);
        this.xrc = type == QpType.XRC_SEND;
    }

    /** {@return offset of the ctrl segment of the WQE the last successful encode claimed} */
    public long ctrl()
    {
        return ctrl;
    }

    /**
     * Claims one WQEBB and writes the XRC segment (XRC_SEND), raddr (if {@code remote}) and one data segment (if
     * {@code len != 0}).
     *
     * @param base the ring's address, from this post's liveness check
     * @param opcode the MLX5 opcode
     * @param remote whether the WQE has a raddr segment
     * @param raddr the remote address
     * @param rkey the remote key
     * @param laddr the local buffer's address
     * @param lkey the local buffer's lkey
     * @param len the local buffer's length
     * @param flags the post's send flags
     * @return the WQE's ds, or 0 if declined (nothing claimed or written)
     */
    public int gather(final long base, final int opcode, final boolean remote, final long raddr, final int rkey,
        final long laddr, final int lkey, final int len, final int flags)
    {
        if ((flags & ~SendOpcodeRules.SEND_QUEUE_FLAGS) != 0 || ((fastGather >>> opcode) & 1) == 0)
        {
            return 0;
        }
        final boolean x = xrc && opcode != MLX5_OPCODE_NOP;
        if (x && xrcSrqn < 0)
        {
            return 0;
        }
        final long ctrl = sq.claim(1);  // ctrl + XRC + raddr + data: at most 4 units, one WQEBB, no ring wrap inside it
        if (ctrl == SendRing.NO_SPACE)
        {
            return 0;
        }
        long at = ctrl + CtrlSeg.LENGTH;
        if (x)
        {
            XrcSeg.put(base + at, xrcSrqn);
            at += XrcSeg.LENGTH;
        }
        if (remote)
        {
            RaddrSeg.put(base + at, raddr, rkey);
            at += RaddrSeg.LENGTH;
        }
        if (len != 0 && opcode != MLX5_OPCODE_NOP)
        {
            DataSeg.put(base + at, len, lkey, laddr);
            at += DataSeg.LENGTH;
        }
        this.ctrl = ctrl;
        return (int) (at - ctrl) >>> 4;
    }

    /**
     * {@link #gather} with {@link io.mlx5j.direct.SendFlags#INLINE}: raddr (if {@code remote}) and one inline segment
     * holding the {@code len} bytes at {@code laddr}, read now.
     *
     * @param base the ring's address, from this post's liveness check
     * @param opcode the MLX5 opcode
     * @param remote whether the WQE has a raddr segment
     * @param raddr the remote address
     * @param rkey the remote key
     * @param laddr the local buffer's address
     * @param len the local buffer's length
     * @param flags the post's send flags
     * @return the WQE's ds, or 0 if declined (nothing claimed or written)
     */
    public int inline(final long base, final int opcode, final boolean remote, final long raddr, final int rkey,
        final long laddr, final int len, final int flags)
    {
        // INLINE reads the payload now, from this process's memory: the null page is refused (by the staging path)
        if ((flags & ~SendOpcodeRules.SEND_QUEUE_FLAGS) != 0 || ((fastInline >>> opcode) & 1) == 0 || len < 0 ||
            len > maxInline || (len != 0 && Long.compareUnsigned(laddr, SendStaging.NULL_PAGE) < 0))
        {
            return 0;
        }
        final boolean payload = len != 0 && opcode != MLX5_OPCODE_NOP;
        final boolean x = xrc && opcode != MLX5_OPCODE_NOP;
        final int ds = 1 + (x ? 1 : 0) + (remote ? 1 : 0) + (payload ? InlineSeg.ds(len) : 0);
        if (ds > maxDs || (x && xrcSrqn < 0))
        {
            return 0;
        }
        final long ctrl = sq.claim(SendRing.numWqebb(ds));
        if (ctrl == SendRing.NO_SPACE)
        {
            return 0;
        }
        long at = ctrl + CtrlSeg.LENGTH;
        if (x)
        {
            XrcSeg.put(base + at, xrcSrqn);
            at += XrcSeg.LENGTH;
        }
        if (remote)
        {
            RaddrSeg.put(base + at, raddr, rkey);
            at += RaddrSeg.LENGTH;
        }
        if (payload)
        {
            inlineSeg(base, at, laddr, len);
        }
        this.ctrl = ctrl;
        return ds;
    }

    /**
     * The inline segment at ring offset {@code at} (16-aligned, inside the WQE's first WQEBB, so only its last unit
     * and payload can reach the ring end and continue at offset 0), the same bytes as {@link WqeWriter}'s inline:
     * the last unit zeroed first (padding), then the header, then the payload. Written here rather than through the
     * writer, whose wrap, reserve and cursor bookkeeping the fast path has already settled (claim and maxDs).
     */
    private void inlineSeg(final long base, final long at, final long laddr, final int len)
    {
        final long last = (at + ((long)(InlineSeg.ds(len) - 1) << 4)) & ringMask;
        RingStores.putLongBE(base + last, 0L);
        RingStores.putLongBE(base + last + 8, 0L);
        InlineSeg.putHeader(base + at, len);
        final long data = at + InlineSeg.DATA_OFFSET;
        final long first = Math.min(len, ringMask + 1 - data);
        RingStores.copy(laddr, base + data, first);
        if (first < len)
        {
            RingStores.copy(laddr + first, base, len - first);
        }
    }
}
