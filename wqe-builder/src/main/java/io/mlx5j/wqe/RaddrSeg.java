package io.mlx5j.wqe;

import io.mlx5j.memory.Be;

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

    /**
     * Encode the segment at {@code at} with two 8-byte big-endian stores: raddr, then rkey with the reserved word 0
     * in its low half (the wire bytes of two 4-byte stores, in half the stores).
     *
     * @param at offset of the segment in {@code sq}, 16-byte aligned (segments never straddle the ring end)
     */
    public static void set(final MemorySegment sq, final long at, final long raddr, final int rkey)
    {
        Be.BE64.set(sq, at + RADDR_OFFSET, raddr);
        Be.BE64.set(sq, at + RKEY_OFFSET, (long)rkey << 32);
    }
}
