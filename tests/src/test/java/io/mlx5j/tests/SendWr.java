// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvDataBuf;
import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.verbs.QpType;
import io.mlx5j.wqe.Mlx5Opcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One send work request, posted three ways: libmlx5's ibv_post_send (through the function pointer), libmlx5's
 * ibv_wr_* builders on the QP's ibv_qp_ex, and mlx5j's {@link SendQueue}. Knows where in its WQE libmlx5 leaves
 * bytes unwritten (see {@link #staleOffsets}).
 */
final class SendWr
{
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long WR_SET_XRC_SRQN_OFFSET = io.mlx5j.bindings.IbvQpEx.LAYOUT.byteOffset(
        java.lang.foreign.MemoryLayout.PathElement.groupElement("wr_set_xrc_srqn"));

    final int ibvOpcode;
    final int flags;            // SendFlags
    final long[] addr;
    final int[] len;
    final int lkey;
    final long raddr;
    final int rkey;
    final int imm;
    final long compareAdd;
    final long swap;
    final long wrId;

    SendWr(final int ibvOpcode, final int flags, final long[] addr, final int[] len, final int lkey, final long raddr,
        final int rkey, final int imm, final long compareAdd, final long swap, final long wrId)
    {
        this.ibvOpcode = ibvOpcode;
        this.flags = flags;
        this.addr = addr;
        this.len = len;
        this.lkey = lkey;
        this.raddr = raddr;
        this.rkey = rkey;
        this.imm = imm;
        this.compareAdd = compareAdd;
        this.swap = swap;
        this.wrId = wrId;
    }

    boolean inline()
    {
        return (flags & SendFlags.INLINE) != 0;
    }

    int mlx5Opcode()
    {
        return switch (ibvOpcode)
        {
            case IbvSendWr.IBV_WR_RDMA_WRITE -> Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE;
            case IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM -> Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM;
            case IbvSendWr.IBV_WR_SEND -> Mlx5Opcode.MLX5_OPCODE_SEND;
            case IbvSendWr.IBV_WR_SEND_WITH_IMM -> Mlx5Opcode.MLX5_OPCODE_SEND_IMM;
            case IbvSendWr.IBV_WR_SEND_WITH_INV -> Mlx5Opcode.MLX5_OPCODE_SEND_INVAL;
            case IbvSendWr.IBV_WR_RDMA_READ -> Mlx5Opcode.MLX5_OPCODE_RDMA_READ;
            case IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP -> Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS;
            case IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD -> Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA;
            default -> throw new IllegalArgumentException("opcode " + ibvOpcode);
        };
    }

    boolean hasRemote(final QpType type)
    {
        return switch (ibvOpcode)
        {
            case IbvSendWr.IBV_WR_RDMA_WRITE, IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM -> type != QpType.UD;
            case IbvSendWr.IBV_WR_RDMA_READ, IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP,
                IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD -> true;
            default -> false;
        };
    }

    boolean atomic()
    {
        return ibvOpcode == IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP || ibvOpcode == IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD;
    }

    int ibvFlags()
    {
        int f = 0;
        if ((flags & SendFlags.SIGNALED) != 0)
        {
            f |= IbvSendWr.IBV_SEND_SIGNALED;
        }
        if ((flags & SendFlags.FENCE) != 0)
        {
            f |= IbvSendWr.IBV_SEND_FENCE;
        }
        if ((flags & SendFlags.SOLICITED) != 0)
        {
            f |= IbvSendWr.IBV_SEND_SOLICITED;
        }
        if ((flags & SendFlags.INLINE) != 0)
        {
            f |= IbvSendWr.IBV_SEND_INLINE;
        }
        return f;
    }

    int totalLength()
    {
        int t = 0;
        for (final int l : len)
        {
            t += l;
        }
        return t;
    }

    /** libmlx5's ibv_post_send, called through the QP's function pointer. */
    void postSend(final Twin t)
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment wr = build(t, a);
            final MemorySegment bad = a.allocate(C_POINTER);
            assertEquals(0, InlineVerbs.ibv_post_send(t.qpL.pointer(), wr, bad), () -> "ibv_post_send " + this);
        }
    }

    /** This WR as a {@code struct ibv_send_wr} (next = NULL) in {@code a}. */
    MemorySegment build(final Twin t, final Arena a)
    {
        {
            final MemorySegment wr = a.allocate(IbvSendWr.LAYOUT);
            final MemorySegment sges = a.allocate(IbvSge.LAYOUT, Math.max(1, len.length));
            for (int i = 0; i < len.length; i++)
            {
                final long at = i * IbvSge.LAYOUT.byteSize();
                sges.set(U64, at + IbvSge.ADDR_OFFSET, addr[i]);
                sges.set(U32, at + IbvSge.LENGTH_OFFSET, len[i]);
                sges.set(U32, at + IbvSge.LKEY_OFFSET, lkey);
            }
            wr.set(U64, IbvSendWr.WR_ID_OFFSET, wrId);
            wr.set(C_POINTER, IbvSendWr.SG_LIST_OFFSET, sges);
            wr.set(C_INT, IbvSendWr.NUM_SGE_OFFSET, len.length);
            wr.set(C_INT, IbvSendWr.OPCODE_OFFSET, ibvOpcode);
            wr.set(C_INT, IbvSendWr.SEND_FLAGS_OFFSET, ibvFlags());
            if (ibvOpcode == IbvSendWr.IBV_WR_SEND_WITH_INV)
            {
                wr.set(U32, IbvSendWr.INVALIDATE_RKEY_OFFSET, imm);
            }
            else
            {
                wr.set(BE32, IbvSendWr.IMM_DATA_OFFSET, imm);   // imm_data is __be32: htobe32(imm)
            }
            if (atomic())
            {
                wr.set(U64, IbvSendWr.ATOMIC_REMOTE_ADDR_OFFSET, raddr);
                wr.set(U32, IbvSendWr.ATOMIC_RKEY_OFFSET, rkey);
                wr.set(U64, IbvSendWr.ATOMIC_COMPARE_ADD_OFFSET, compareAdd);
                wr.set(U64, IbvSendWr.ATOMIC_SWAP_OFFSET, swap);
            }
            else if (t.type == QpType.UD)
            {
                wr.set(C_POINTER, IbvSendWr.UD_AH_OFFSET, t.ah.pointer());
                wr.set(U32, IbvSendWr.UD_REMOTE_QPN_OFFSET, t.qpJ.qpn());
                wr.set(U32, IbvSendWr.UD_REMOTE_QKEY_OFFSET, Rig.QKEY);
            }
            else
            {
                wr.set(U64, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET, raddr);
                wr.set(U32, IbvSendWr.RDMA_RKEY_OFFSET, rkey);
            }
            if (t.type == QpType.XRC_SEND)
            {
                wr.set(U32, IbvSendWr.XRC_REMOTE_SRQN_OFFSET, Twin.XRC_SRQN);
            }
            return wr;
        }
    }

    /** libmlx5's ibv_wr_* builders: start, the opcode builder, (UD address), data setter, complete. */
    void postWr(final Twin t)
    {
        final MemorySegment qpx = t.qpL.qpEx();
        InlineVerbs.ibv_wr_start(qpx);
        addWr(t);
        assertEquals(0, InlineVerbs.ibv_wr_complete(qpx), () -> "ibv_wr_complete " + this);
    }

    /** The builder and setter calls of this WR, between ibv_wr_start and ibv_wr_complete. */
    void addWr(final Twin t)
    {
        final MemorySegment qpx = t.qpL.qpEx();
        try (Arena a = Arena.ofConfined())
        {
            InlineVerbs.wrId(qpx, wrId);
            InlineVerbs.wrFlags(qpx, ibvFlags() & ~IbvSendWr.IBV_SEND_INLINE);
            switch (ibvOpcode)
            {
                case IbvSendWr.IBV_WR_SEND -> InlineVerbs.ibv_wr_send(qpx);
                case IbvSendWr.IBV_WR_SEND_WITH_IMM -> InlineVerbs.ibv_wr_send_imm(qpx, Integer.reverseBytes(imm));
                case IbvSendWr.IBV_WR_SEND_WITH_INV -> InlineVerbs.ibv_wr_send_inv(qpx, imm);
                case IbvSendWr.IBV_WR_RDMA_WRITE -> InlineVerbs.ibv_wr_rdma_write(qpx, rkey, raddr);
                case IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM ->
                    InlineVerbs.ibv_wr_rdma_write_imm(qpx, rkey, raddr, Integer.reverseBytes(imm));
                case IbvSendWr.IBV_WR_RDMA_READ -> InlineVerbs.ibv_wr_rdma_read(qpx, rkey, raddr);
                case IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP ->
                    InlineVerbs.ibv_wr_atomic_cmp_swp(qpx, rkey, raddr, compareAdd, swap);
                case IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD ->
                    InlineVerbs.ibv_wr_atomic_fetch_add(qpx, rkey, raddr, compareAdd);
                default -> throw new IllegalArgumentException("opcode " + ibvOpcode);
            }
            if (t.type == QpType.UD)
            {
                InlineVerbs.ibv_wr_set_ud_addr(qpx, t.ah.pointer(), t.qpJ.qpn(), Rig.QKEY);
            }
            if (t.type == QpType.XRC_SEND)
            {
                // ibv_wr_set_xrc_srqn (verbs.h static inline): qpx->wr_set_xrc_srqn(qpx, remote_srqn)
                InlineVerbs.callWrI(InlineVerbs.wrFn(qpx, WR_SET_XRC_SRQN_OFFSET), qpx, Twin.XRC_SRQN);
            }
            if (inline())
            {
                final MemorySegment bufs = a.allocate(IbvDataBuf.LAYOUT, Math.max(1, len.length));
                for (int i = 0; i < len.length; i++)
                {
                    final long at = i * IbvDataBuf.LAYOUT.byteSize();
                    bufs.set(C_POINTER, at + IbvDataBuf.ADDR_OFFSET, MemorySegment.ofAddress(addr[i]));
                    bufs.set(U64, at + IbvDataBuf.LENGTH_OFFSET, len[i]);
                }
                InlineVerbs.ibv_wr_set_inline_data_list(qpx, len.length, bufs);
            }
            else
            {
                final MemorySegment sges = a.allocate(IbvSge.LAYOUT, Math.max(1, len.length));
                for (int i = 0; i < len.length; i++)
                {
                    final long at = i * IbvSge.LAYOUT.byteSize();
                    sges.set(U64, at + IbvSge.ADDR_OFFSET, addr[i]);
                    sges.set(U32, at + IbvSge.LENGTH_OFFSET, len[i]);
                    sges.set(U32, at + IbvSge.LKEY_OFFSET, lkey);
                }
                InlineVerbs.ibv_wr_set_sge_list(qpx, len.length, sges);
            }
        }
    }

    /** mlx5j: {@link #stageDirect}, then one ring. */
    void postDirect(final Twin t)
    {
        stageDirect(t);
        assertEquals(1, t.sqJ.ring());
    }

    /**
     * Whether {@link #stageDirect} posts this WR through SendQueue's one-call form ({@code send}, {@code
     * rdmaWrite}, ...: its fast path encodes straight into the ring) rather than the staging form: every WR with an odd
     * wr_id that the one-call form can express (at most one gather entry or inline piece, not UD, not atomic), so
     * that both encoders meet libmlx5 across the whole matrix.
     */
    boolean oneCallForm(final QpType type)
    {
        return (wrId & 1) != 0 && len.length <= 1 && type != QpType.UD &&
            ibvOpcode != IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP && ibvOpcode != IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD;
    }

    /** mlx5j: the one-call form of SendQueue (see {@link #oneCallForm}), posted but not rung. */
    private void postOneCall(final SendQueue sq)
    {
        final long a = len.length == 0 ? 0 : addr[0];
        final int l = len.length == 0 ? 0 : len[0];
        final boolean posted = switch (ibvOpcode)
        {
            case IbvSendWr.IBV_WR_SEND -> sq.send(wrId, a, lkey, l, flags);
            case IbvSendWr.IBV_WR_SEND_WITH_IMM -> sq.sendImm(wrId, a, lkey, l, imm, flags);
            case IbvSendWr.IBV_WR_SEND_WITH_INV -> sq.sendInv(wrId, a, lkey, l, imm, flags);
            case IbvSendWr.IBV_WR_RDMA_WRITE -> sq.rdmaWrite(wrId, a, lkey, l, raddr, rkey, flags);
            case IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM -> sq.rdmaWriteImm(wrId, a, lkey, l, raddr, rkey, imm, flags);
            case IbvSendWr.IBV_WR_RDMA_READ -> sq.rdmaRead(wrId, a, lkey, l, raddr, rkey, flags);
            default -> throw new IllegalArgumentException("no one-call form for opcode " + ibvOpcode);
        };
        assertTrue(posted, () -> "SendQueue one-call post " + this);
    }

    /** mlx5j: SendQueue's staging form, or its one-call form (see {@link #oneCallForm}), posted but not rung. */
    void stageDirect(final Twin t)
    {
        final SendQueue sq = t.sqJ;
        if (oneCallForm(t.type))
        {
            postOneCall(sq);
            return;
        }
        sq.begin(wrId, mlx5Opcode(), flags);
        if (hasRemote(t.type))
        {
            sq.remote(raddr, rkey);
        }
        sq.imm(ibvOpcode == IbvSendWr.IBV_WR_SEND_WITH_IMM || ibvOpcode == IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM ||
            ibvOpcode == IbvSendWr.IBV_WR_SEND_WITH_INV ? imm : 0);
        if (ibvOpcode == IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP)
        {
            sq.compareSwapOperands(compareAdd, swap);
        }
        else if (ibvOpcode == IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD)
        {
            sq.fetchAddOperand(compareAdd);
        }
        if (t.type == QpType.UD)
        {
            sq.destination(t.ah, t.qpJ.qpn(), Rig.QKEY);
        }
        for (int i = 0; i < len.length; i++)
        {
            sq.sge(addr[i], lkey, len[i]);
        }
        assertTrue(sq.post(), () -> "SendQueue.post " + this);
    }

    /**
     * Offsets inside the WQE (from its ctrl segment) that libmlx5 does not write for this WR, so they keep whatever the
     * ring held, while mlx5j writes zeros there:
     * <ul>
     * <li>imm (ctrl bytes 12..15) of opcodes without immediate data, on the ibv_wr_* path only:
     *     _common_wqe_init_op sets fm_ce_se and opmod_idx_opcode but not imm (ibv_post_send writes send_ieth(wr),
     *     i.e. 0);</li>
     * <li>the compare word of a FETCH_ADD atomic segment: _set_atomic_seg writes only swap_add (both paths);</li>
     * <li>the padding of an inline segment up to its 16-byte boundary (set_data_inl_seg / memcpy_to_wqe copy only the
     *     payload).</li>
     * </ul>
     */
    boolean[] staleOffsets(final QpType type, final boolean wrApi, final int wqeBytes)
    {
        final boolean[] stale = new boolean[wqeBytes];
        final int op = ibvOpcode;
        if (wrApi && op != IbvSendWr.IBV_WR_SEND_WITH_IMM && op != IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM &&
            op != IbvSendWr.IBV_WR_SEND_WITH_INV)
        {
            for (int i = 12; i < 16; i++)
            {
                stale[i] = true;
            }
        }
        if (type == QpType.XRC_SEND)
        {
            // struct mlx5_wqe_xrc_seg: libmlx5 writes xrc_srqn (bytes 16..19) and never its 12 reserved bytes
            for (int i = 20; i < 32; i++)
            {
                stale[i] = true;
            }
        }
        int data = 16 + (type == QpType.UD ? 48 : 0) + (type == QpType.XRC_SEND ? 16 : 0) + (hasRemote(type) ? 16 : 0);
        if (atomic())
        {
            if (op == IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD)
            {
                for (int i = data + 8; i < data + 16; i++)
                {
                    stale[i] = true;
                }
            }
            data += 16;
        }
        final int total = totalLength();
        if (inline() && total > 0)
        {
            final int end = data + ((4 + total + 15) & ~15);
            for (int i = data + 4 + total; i < end; i++)
            {
                stale[i] = true;
            }
        }
        return stale;
    }

    @Override
    public String toString()
    {
        return "WR(opcode " + ibvOpcode + ", flags 0x" + Integer.toHexString(flags) + ", sges " +
            java.util.Arrays.toString(len) + (inline() ? " inline" : "") + ", wr_id " + wrId + ")";
    }
}
