// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * Data (scatter/gather pointer) segment, used in send and receive WQEs ({@code struct mlx5_wqe_data_seg},
 * rdma-core v44 mlx5dv.h; the encoding of {@code mlx5dv_set_data_seg}).
 * <pre>
 *        31                                                     0
 *       +-------------------------------------------------------+
 *  0x00 |                      byte_count                       |
 *       +-------------------------------------------------------+
 *  0x04 |                         lkey                          |
 *       +-------------------------------------------------------+
 *  0x08 |                      addr [63:32]                     |
 *       +-------------------------------------------------------+
 *  0x0C |                      addr [31:0]                      |
 *       +-------------------------------------------------------+
 * </pre>
 * In a receive WQE that uses fewer entries than its stride holds, the list ends with byte_count 0, lkey
 * {@link #MLX5_INVALID_LKEY} and addr 0 (as libmlx5's mlx5_post_recv does).
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class DataSeg
{
    /** Byte offset of {@code byte_count} in the data segment ({@code struct mlx5_wqe_data_seg}). */
    public static final int BYTE_COUNT_OFFSET = 0;
    /** Byte offset of {@code lkey} in the data segment ({@code struct mlx5_wqe_data_seg}). */
    public static final int LKEY_OFFSET = 4;
    /** Byte offset of {@code addr} in the data segment ({@code struct mlx5_wqe_data_seg}). */
    public static final int ADDR_OFFSET = 8;
    /** Size of the data segment ({@code struct mlx5_wqe_data_seg}) in bytes. */
    public static final int LENGTH = 16;

    /** lkey that terminates a receive scatter list (mlx5dv.h). */
    public static final int MLX5_INVALID_LKEY = 0x100;

    private DataSeg()
    {
    }

    /**
     * First 8 bytes as one big-endian word: byte_count, then lkey.
     *
     * @param byteCount the number of bytes
     * @param lkey the local key of the memory region holding the buffer
     * @return the word, to be stored big-endian
     */
    public static long word0(final int byteCount, final int lkey)
    {
        return ((long)byteCount << 32) | (lkey & 0xffffffffL);
    }

    /**
     * Encode the segment at {@code at} as mlx5dv_set_data_seg does, with two 8-byte big-endian stores: byte_count
     * and lkey in one, addr in the other.
     *
     * @param at offset of the segment in {@code sq}, 16-byte aligned (segments never straddle the ring end)
     * @param sq the whole send ring
     * @param byteCount the number of bytes
     * @param lkey the local key of the memory region holding the buffer
     * @param addr the virtual address of the buffer
     */
    public static void set(final MemorySegment sq, final long at, final int byteCount, final int lkey, final long addr)
    {
        Be.BE64.set(sq, at + BYTE_COUNT_OFFSET, word0(byteCount, lkey));
        Be.BE64.set(sq, at + ADDR_OFFSET, addr);
    }

    /**
     * The entry that ends a receive scatter list: byte_count 0, lkey {@link #MLX5_INVALID_LKEY}, addr 0.
     *
     * @param rq the receive ring
     * @param at offset of the segment in the ring, 16-byte aligned
     */
    public static void setTerminator(final MemorySegment rq, final long at)
    {
        set(rq, at, 0, MLX5_INVALID_LKEY, 0L);
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     * Small and static so that C2 inlines it into every post.
     *
     * @param address ring address of the segment, 16-byte aligned
     * @param byteCount the number of bytes
     * @param lkey the local key of the memory region holding the buffer
     * @param addr the virtual address of the buffer
     */
    public static void put(final long address, final int byteCount, final int lkey, final long addr)
    {
        RingStores.putLongBE(address + BYTE_COUNT_OFFSET, word0(byteCount, lkey));
        RingStores.putLongBE(address + ADDR_OFFSET, addr);
    }

    /**
     * {@link #setTerminator} at a ring address.
     *
     * @param address ring address of the segment, 16-byte aligned
     */
    public static void putTerminator(final long address)
    {
        put(address, 0, MLX5_INVALID_LKEY, 0L);
    }
}
