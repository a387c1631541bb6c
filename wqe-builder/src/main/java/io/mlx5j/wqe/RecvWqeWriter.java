// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight encoder of one receive WQE: a list of {@link DataSeg} scatter entries filling a fixed stride (the RQ's
 * {@code mlx5dv_qp.rq.stride}, or the SRQ's stride after its {@link SrqNextSeg}). When fewer entries are used than
 * the stride holds, {@link #finish()} writes a terminator entry (byte_count 0, lkey MLX5_INVALID_LKEY, addr 0) so
 * the device stops reading there, exactly as libmlx5's mlx5_post_recv / mlx5_post_srq_recv do.
 * <p>
 * Sequence: {@link #wrap} (RQ) or {@link #wrapSrq}, then {@link #data} per SGE, then {@link #finish()}.
 * More SGEs than the stride holds throw {@link IllegalArgumentException} before anything is written past the stride.
 * <p>
 * <b>Thread confinement:</b> not thread-safe; one instance per posting thread.
 */
public final class RecvWqeWriter
{
    private MemorySegment rq;
    private long cursor;
    private long end;
    private int sges;

    /**
     * Start an RQ WQE.
     *
     * @param rq        the receive ring (or SRQ buffer)
     * @param wqeOffset byte offset of the WQE (slot * stride)
     * @param stride    WQE size in bytes, a multiple of 16
     */
    public RecvWqeWriter wrap(final MemorySegment rq, final long wqeOffset, final int stride)
    {
        if (stride < DataSeg.LENGTH || (stride & 15) != 0 || (wqeOffset & 15) != 0 || wqeOffset < 0 ||
            wqeOffset + stride > rq.byteSize())
        {
            throw new IllegalArgumentException("receive WQE at " + wqeOffset + " with stride " + stride +
                " does not fit the ring of " + rq.byteSize() + " bytes");
        }
        this.rq = rq;
        this.cursor = wqeOffset;
        this.end = wqeOffset + stride;
        this.sges = 0;
        return this;
    }

    /** Start an SRQ WQE: writes the next segment (next_wqe_index, signature 0), then the scatter list follows. */
    public RecvWqeWriter wrapSrq(final MemorySegment srq, final long wqeOffset, final int stride,
        final int nextWqeIndex)
    {
        wrap(srq, wqeOffset, stride);
        if (stride < SrqNextSeg.LENGTH + DataSeg.LENGTH)
        {
            throw new IllegalArgumentException("SRQ stride " + stride + " has no room for a data segment");
        }
        SrqNextSeg.set(srq, wqeOffset, nextWqeIndex);
        this.cursor = wqeOffset + SrqNextSeg.LENGTH;
        return this;
    }

    /** One scatter entry. */
    public RecvWqeWriter data(final int byteCount, final int lkey, final long addr)
    {
        if (cursor + DataSeg.LENGTH > end)
        {
            throw new IllegalArgumentException("receive WQE holds only " + sges + " SGEs; one more does not fit");
        }
        DataSeg.set(rq, cursor, byteCount, lkey, addr);
        cursor += DataSeg.LENGTH;
        sges++;
        return this;
    }

    /** Terminate the scatter list if the stride has room for another entry. */
    public RecvWqeWriter finish()
    {
        if (cursor + DataSeg.LENGTH <= end)
        {
            DataSeg.setTerminator(rq, cursor);
        }
        return this;
    }

    public int sges()
    {
        return sges;
    }
}
