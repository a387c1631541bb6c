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
     * Creates an unwrapped writer; {@link #wrap} or {@link #wrapSrq} starts a WQE. Any thread may construct it.
     */
    public RecvWqeWriter()
    {
    }

    /**
     * Start an RQ WQE.
     *
     * @param rq        the receive ring (or SRQ buffer)
     * @param wqeOffset byte offset of the WQE (slot * stride)
     * @param stride    WQE size in bytes, a multiple of 16
     * @return this writer
     * @throws IllegalArgumentException if the WQE does not fit the ring or the stride is not a multiple of 16
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

    /**
     * Start an SRQ WQE: writes the next segment (next_wqe_index, signature 0), then the scatter list follows.
     *
     * @param srq the SRQ buffer
     * @param wqeOffset byte offset of the WQE (slot * stride)
     * @param stride WQE size in bytes, a multiple of 16
     * @param nextWqeIndex the index of the next WQE in the SRQ free list
     * @return this writer
     * @throws IllegalArgumentException if the WQE does not fit the ring or has no room for a data segment
     */
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

    /**
     * One scatter entry.
     *
     * @param byteCount the number of bytes
     * @param lkey the local key of the memory region holding the buffer
     * @param addr the virtual address of the buffer
     * @return this writer
     * @throws IllegalArgumentException if the stride has no room for another entry
     */
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

    /**
     * Terminate the scatter list if the stride has room for another entry.
     *
     * @return this writer
     */
    public RecvWqeWriter finish()
    {
        if (cursor + DataSeg.LENGTH <= end)
        {
            DataSeg.setTerminator(rq, cursor);
        }
        return this;
    }

    /** {@return the scatter entries written since the last wrap} */
    public int sges()
    {
        return sges;
    }
}
