// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.memory.Be;
import io.mlx5j.verbs.QpType;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WcStatus;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_READ;

/**
 * The send side of completions that carry data: RDMA READ and atomic responses the NIC put into the CQE
 * (scatter-to-CQE) are copied into the gather list of the WQE they complete, read back from the send ring, as
 * libmlx5's mlx5_copy_to_send_wqe (rdma-core v44 providers/mlx5/qp.c); and the operand size of a masked atomic
 * (the CQE's byte count libmlx5 reports for it). Reads the ring only; called from {@link io.mlx5j.direct.CqPoller}'s
 * poll.
 *
 * <p>Thread model: static; any thread.
 */
public final class SendScatter
{
    private SendScatter()
    {
    }

    /**
     * Operand size of the (masked) atomic WQE at {@code wqeCounter}: 4 for opmod EXT_ATOMIC_32, else 8.
     *
     * @param ring the send ring
     * @param ringMask ring size - 1
     * @param wqeCounter the CQE's wqe_counter
     * @return 4 or 8
     */
    public static int atomicBytes(final MemorySegment ring, final long ringMask, final int wqeCounter)
    {
        final long ctrl = ((long) wqeCounter << SendRing.MLX5_SEND_WQE_SHIFT) & ringMask;
        return (Be.be32(ring, ctrl) >>> 24) == Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_32 ? 4 : 8;
    }

    /**
     * Copies {@code size} bytes from {@code src} into the gather list of the WQE at {@code wqeCounter}: the entries
     * start after raddr (READ) or raddr + atomic segment, and wrap at the ring end.
     *
     * @param type the QP type
     * @param ring the send ring
     * @param ringMask ring size - 1
     * @param wqeCounter the CQE's wqe_counter
     * @param src the bytes to copy (the CQ ring)
     * @param srcOffset offset of the first byte in {@code src}
     * @param size bytes to copy
     * @return SUCCESS; LOC_LEN_ERR if the gather list is shorter than the data; REM_INV_REQ_ERR for an opcode that
     *         cannot scatter, GENERAL_ERR on a QP type that cannot (both as libmlx5)
     */
    public static WcStatus copyToSendWqe(final QpType type, final MemorySegment ring, final long ringMask,
        final int wqeCounter, final MemorySegment src, final long srcOffset, final int size)
    {
        if (type != QpType.RC)
        {
            return WcStatus.GENERAL_ERR;
        }
        final long ctrl = ((long) wqeCounter << SendRing.MLX5_SEND_WQE_SHIFT) & ringMask;
        final int opcode = Be.be32(ring, ctrl + CtrlSeg.OPMOD_IDX_OPCODE_OFFSET) & 0xff;
        final int ds = Be.be32(ring, ctrl + CtrlSeg.QPN_DS_OFFSET) & CtrlSeg.MAX_DS;
        final int skip;  // ctrl, raddr and the atomic segment, in 16-byte units
        switch (opcode)
        {
            case MLX5_OPCODE_RDMA_READ -> skip = 2;
            case MLX5_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_FA, MLX5_OPCODE_ATOMIC_MASKED_FA -> skip = 3;
            case MLX5_OPCODE_ATOMIC_MASKED_CS -> skip =
                (Be.be32(ring, ctrl) >>> 24) == Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_64 ? 4 : 3;
            default ->
            {
                return WcStatus.REM_INV_REQ_ERR;
            }
        }
        return Scatter.copy(ring, ringMask, ctrl + ((long) skip << 4), ds - skip, src, srcOffset, size);
    }
}
