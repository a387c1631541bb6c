// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.examples.wqeunittest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A hand-written mlx5 send encoder of the kind a project writes for its own post path: an RDMA WRITE with one
 * gather entry, and a SEND with inline data, on an RC QP. It writes the WQE (ctrl segment, then raddr and data, or
 * inline) into a segment at its ctrl offset; it knows nothing of mlx5j. Layouts: rdma-core providers/mlx5/mlx5dv.h
 * (struct mlx5_wqe_ctrl_seg, mlx5_wqe_raddr_seg, mlx5_wqe_data_seg, mlx5_wqe_inline_seg), all big-endian.
 */
public class TinyEncoder
{
    /** MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_SEND. */
    public static final int RDMA_WRITE = 0x08;
    public static final int SEND = 0x0a;
    /** fm_ce_se bits: MLX5_WQE_CTRL_CQ_UPDATE (2 << 2), MLX5_WQE_CTRL_SOLICITED (1 << 1). */
    public static final int CQ_UPDATE = 0x08;
    public static final int SOLICITED = 0x02;

    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** fm_ce_se for a signaled / solicited request. A subclass may get this wrong, which is what tests are for. */
    protected int fmCeSe(final boolean signaled, final boolean solicited)
    {
        return (signaled ? CQ_UPDATE : 0) | (solicited ? SOLICITED : 0);
    }

    /** RDMA WRITE of one gather entry; returns the WQE's size in bytes (ds * 16). */
    public int rdmaWrite(final MemorySegment wqe, final int wqeIndex, final int qpn, final long laddr, final int lkey,
        final int length, final long raddr, final int rkey, final boolean signaled, final boolean solicited)
    {
        ctrl(wqe, RDMA_WRITE, wqeIndex, qpn, 3, fmCeSe(signaled, solicited));
        wqe.set(BE64, 16, raddr);
        wqe.set(BE32, 24, rkey);
        wqe.set(BE32, 28, 0);
        wqe.set(BE32, 32, length);
        wqe.set(BE32, 36, lkey);
        wqe.set(BE64, 40, laddr);
        return 48;
    }

    /** SEND of {@code data} inline; returns the WQE's size in bytes. */
    public int sendInline(final MemorySegment wqe, final int wqeIndex, final int qpn, final byte[] data,
        final boolean signaled, final boolean solicited)
    {
        final int inlineBytes = (4 + data.length + 15) & ~15;
        final int ds = 1 + inlineBytes / 16;
        ctrl(wqe, SEND, wqeIndex, qpn, ds, fmCeSe(signaled, solicited));
        wqe.set(BE32, 16, 0x80000000 | data.length);     // MLX5_INLINE_SEG | byte_count
        MemorySegment.copy(data, 0, wqe, ValueLayout.JAVA_BYTE, 20, data.length);
        wqe.asSlice(20 + data.length, inlineBytes - 4 - data.length).fill((byte)0);
        return ds * 16;
    }

    private static void ctrl(final MemorySegment wqe, final int opcode, final int wqeIndex, final int qpn,
        final int ds, final int fmCeSe)
    {
        wqe.set(BE32, 0, (wqeIndex & 0xffff) << 8 | opcode);   // opmod_idx_opcode, opmod 0
        wqe.set(BE32, 4, qpn << 8 | ds);                       // qpn_ds
        wqe.set(BE32, 8, fmCeSe);                              // signature, rsvd[2], fm_ce_se
        wqe.set(BE32, 12, 0);                                  // imm
    }
}
