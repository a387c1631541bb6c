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
 */
public final class RaddrSeg
{
    public static final int RADDR_OFFSET = 0;
    public static final int RKEY_OFFSET = 8;
    public static final int RESERVED_OFFSET = 12;
    public static final int LENGTH = 16;

    private RaddrSeg()
    {
    }

    /** Last 8 bytes as one big-endian word: rkey, then the reserved word 0. */
    public static long word8(final int rkey)
    {
        return (long)rkey << 32;
    }

    /**
     * Encode the segment at {@code at} with two 8-byte big-endian stores: raddr, then rkey with the reserved word 0
     * in its low half (the wire bytes of two 4-byte stores, in half the stores).
     *
     * @param at offset of the segment in {@code sq}, 16-byte aligned (segments never straddle the ring end)
     */
    public static void set(final MemorySegment sq, final long at, final long raddr, final int rkey)
    {
        Be.BE64.set(sq, at + RADDR_OFFSET, raddr);
        Be.BE64.set(sq, at + RKEY_OFFSET, word8(rkey));
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     * Small and static so that C2 inlines it into every post.
     */
    public static void put(final long address, final long raddr, final int rkey)
    {
        RingStores.putLongBE(address + RADDR_OFFSET, raddr);
        RingStores.putLongBE(address + RKEY_OFFSET, word8(rkey));
    }
}
