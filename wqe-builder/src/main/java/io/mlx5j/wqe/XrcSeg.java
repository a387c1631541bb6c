// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * XRC segment of the send WQEs of an XRC INI QP ({@code struct mlx5_wqe_xrc_seg}, rdma-core v44
 * providers/mlx5/wqe.h): the number of the XRC SRQ at the target that receives the message, right after the ctrl
 * segment of every WQE but NOP (libmlx5 qp.c _mlx5_post_send and mlx5_send_wr_set_xrc_srqn).
 * <pre>
 *        31                                                     0
 *       +-------------------------------------------------------+
 *  0x00 |                       xrc_srqn                        |  the device reads the low 24 bits
 *       +-------------------------------------------------------+
 *  0x04 |                     reserved (12 bytes)               |  written as 0; libmlx5 leaves them unwritten
 *       +-------------------------------------------------------+
 * </pre>
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class XrcSeg
{
    /** Byte offset of {@code xrc_srqn} in the XRC segment ({@code struct mlx5_wqe_xrc_seg}). */
    public static final int XRC_SRQN_OFFSET = 0;
    /** Byte offset of the reserved bytes in the XRC segment ({@code struct mlx5_wqe_xrc_seg}). */
    public static final int RESERVED_OFFSET = 4;
    /** Size of the XRC segment ({@code struct mlx5_wqe_xrc_seg}) in bytes. */
    public static final int LENGTH = 16;

    private XrcSeg()
    {
    }

    /**
     * Encode the segment at {@code at} with two 8-byte big-endian stores: xrc_srqn and the first reserved word, then
     * the last two reserved words.
     *
     * @param at offset of the segment in {@code sq}, 16-byte aligned (segments never straddle the ring end)
     * @param sq the whole send ring
     * @param srqn the remote XRC SRQ number
     */
    public static void set(final MemorySegment sq, final long at, final int srqn)
    {
        Be.BE64.set(sq, at, (long) srqn << 32);
        Be.BE64.set(sq, at + 8, 0L);
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     *
     * @param address ring address of the segment, 16-byte aligned
     * @param srqn the remote XRC SRQ number
     */
    public static void put(final long address, final int srqn)
    {
        RingStores.putLongBE(address, (long) srqn << 32);
        RingStores.putLongBE(address + 8, 0L);
    }
}
