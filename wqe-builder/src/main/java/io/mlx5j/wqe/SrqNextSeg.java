// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * First 16 bytes of every SRQ receive WQE ({@code struct mlx5_wqe_srq_next_seg}, rdma-core v44 mlx5dv.h): links the
 * free list of SRQ WQEs, which the device follows when it consumes one.
 * <pre>
 *        31            24 23           16 15                           0
 *       +-------------------------------+-----------------------------+
 *  0x00 |           rsvd0               |        next_wqe_index       |
 *       +---------------+---------------+-----------------------------+
 *  0x04 |   signature   |                  rsvd1 (11 bytes) ...       |
 *       +---------------+---------------------------------------------+
 * </pre>
 * A striding (multi-packet) RQ WQE starts with the same 16 bytes, unused on its cyclic WQ and written as zeros,
 * followed by one {@link DataSeg} (PRM "Multi-Packet Receive Queue" WQE; rdma-core v44 providers/mlx5 mlx5dv.h
 * gives no struct of its own for it).
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class SrqNextSeg
{
    /** Byte offset of {@code rsvd0} in the SRQ next segment ({@code struct mlx5_wqe_srq_next_seg}). */
    public static final int RSVD0_OFFSET = 0;
    /** Byte offset of {@code next_wqe_index} in the SRQ next segment ({@code struct mlx5_wqe_srq_next_seg}). */
    public static final int NEXT_WQE_INDEX_OFFSET = 2;
    /** Byte offset of {@code signature} in the SRQ next segment ({@code struct mlx5_wqe_srq_next_seg}). */
    public static final int SIGNATURE_OFFSET = 4;
    /** Byte offset of {@code rsvd1} in the SRQ next segment ({@code struct mlx5_wqe_srq_next_seg}). */
    public static final int RSVD1_OFFSET = 5;
    /** Size of the SRQ next segment ({@code struct mlx5_wqe_srq_next_seg}) in bytes. */
    public static final int LENGTH = 16;

    private SrqNextSeg()
    {
    }

    /**
     * First 8 bytes as one big-endian word: rsvd0 0, next_wqe_index, signature 0, the first 3 bytes of rsvd1 0.
     *
     * @param nextWqeIndex index of the next WQE in the free list
     * @return the word, to be stored big-endian
     */
    public static long word0(final int nextWqeIndex)
    {
        return (long)(nextWqeIndex & 0xffff) << 32;
    }

    /**
     * The whole segment at {@code at} (16-aligned): next_wqe_index, everything else 0; two 8-byte stores.
     *
     * @param rq the SRQ buffer
     * @param at offset of the segment in {@code rq}, 16-byte aligned
     * @param nextWqeIndex index of the next WQE in the free list
     */
    public static void set(final MemorySegment rq, final long at, final int nextWqeIndex)
    {
        Be.BE64.set(rq, at, word0(nextWqeIndex));
        Be.BE64.set(rq, at + 8, 0L);
    }

    /**
     * Only next_wqe_index of the segment at {@code at}: relinks the free list and leaves the rest as it is.
     *
     * @param rq the SRQ buffer
     * @param at offset of the segment in {@code rq}, 16-byte aligned
     * @param nextWqeIndex index of the next WQE in the free list
     */
    public static void setNextWqeIndex(final MemorySegment rq, final long at, final int nextWqeIndex)
    {
        Be.BE16.set(rq, at + NEXT_WQE_INDEX_OFFSET, (short)nextWqeIndex);
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     *
     * @param address ring address of the segment, 16-byte aligned
     * @param nextWqeIndex index of the next WQE in the free list
     */
    public static void put(final long address, final int nextWqeIndex)
    {
        RingStores.putLongBE(address, word0(nextWqeIndex));
        RingStores.putLongBE(address + 8, 0L);
    }
}
