// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * Remote address segment of RDMA and atomic WQEs ({@code struct mlx5_wqe_raddr_seg}, rdma-core v44 mlx5dv.h).
 * <pre>
 *        31                                                     0
 *       +-------------------------------------------------------+
 *  0x00 |                     raddr [63:32]                     |
 *       +-------------------------------------------------------+
 *  0x04 |                     raddr [31:0]                      |
 *       +-------------------------------------------------------+
 *  0x08 |                         rkey                          |
 *       +-------------------------------------------------------+
 *  0x0C |                       reserved                        |  written as 0
 *       +-------------------------------------------------------+
 * </pre>
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class RaddrSeg
{
    /** Byte offset of {@code raddr} in the remote address segment ({@code struct mlx5_wqe_raddr_seg}). */
    public static final int RADDR_OFFSET = 0;
    /** Byte offset of {@code rkey} in the remote address segment ({@code struct mlx5_wqe_raddr_seg}). */
    public static final int RKEY_OFFSET = 8;
    /** Byte offset of {@code reserved} in the remote address segment ({@code struct mlx5_wqe_raddr_seg}). */
    public static final int RESERVED_OFFSET = 12;
    /** Size of the remote address segment ({@code struct mlx5_wqe_raddr_seg}) in bytes. */
    public static final int LENGTH = 16;

    private RaddrSeg()
    {
    }

    /**
     * Last 8 bytes as one big-endian word: rkey, then the reserved word 0.
     *
     * @param rkey the remote key of the remote memory region
     * @return the word, to be stored big-endian
     */
    public static long word8(final int rkey)
    {
        return (long)rkey << 32;
    }

    /**
     * Encode the segment at {@code at} with two 8-byte big-endian stores: raddr, then rkey with the reserved word 0
     * in its low half (the wire bytes of two 4-byte stores, in half the stores).
     *
     * @param at offset of the segment in {@code sq}, 16-byte aligned (segments never straddle the ring end)
     * @param sq the whole send ring
     * @param raddr the remote virtual address
     * @param rkey the remote key of the remote memory region
     */
    public static void set(final MemorySegment sq, final long at, final long raddr, final int rkey)
    {
        Be.BE64.set(sq, at + RADDR_OFFSET, raddr);
        Be.BE64.set(sq, at + RKEY_OFFSET, word8(rkey));
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     * Small and static so that C2 inlines it into every post.
     *
     * @param address ring address of the segment, 16-byte aligned
     * @param raddr the remote virtual address
     * @param rkey the remote key of the remote memory region
     */
    public static void put(final long address, final long raddr, final int rkey)
    {
        RingStores.putLongBE(address + RADDR_OFFSET, raddr);
        RingStores.putLongBE(address + RKEY_OFFSET, word8(rkey));
    }
}
