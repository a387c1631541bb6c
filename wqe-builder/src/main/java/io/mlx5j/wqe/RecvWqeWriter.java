package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.memory.Be.BE16;
import static io.mlx5j.memory.Be.BE32;
import static io.mlx5j.memory.Be.BE64;

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
        BE16.set(srq, wqeOffset + SrqNextSeg.RSVD0_OFFSET, (short)0);
        BE16.set(srq, wqeOffset + SrqNextSeg.NEXT_WQE_INDEX_OFFSET, (short)nextWqeIndex);
        // signature (0) and the 11 bytes of rsvd1 as two aligned stores: a 4-byte word at the signature, then the
        // 8 bytes that end the segment
        BE32.set(srq, wqeOffset + SrqNextSeg.SIGNATURE_OFFSET, 0);
        BE64.set(srq, wqeOffset + SrqNextSeg.LENGTH - 8, 0L);
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
        BE32.set(rq, cursor + DataSeg.BYTE_COUNT_OFFSET, byteCount);
        BE32.set(rq, cursor + DataSeg.LKEY_OFFSET, lkey);
        BE64.set(rq, cursor + DataSeg.ADDR_OFFSET, addr);
        cursor += DataSeg.LENGTH;
        sges++;
        return this;
    }

    /** Terminate the scatter list if the stride has room for another entry. */
    public RecvWqeWriter finish()
    {
        if (cursor + DataSeg.LENGTH <= end)
        {
            BE32.set(rq, cursor + DataSeg.BYTE_COUNT_OFFSET, 0);
            BE32.set(rq, cursor + DataSeg.LKEY_OFFSET, DataSeg.MLX5_INVALID_LKEY);
            BE64.set(rq, cursor + DataSeg.ADDR_OFFSET, 0L);
        }
        return this;
    }

    public int sges()
    {
        return sges;
    }
}
