// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * Inline data segment ({@code struct mlx5_wqe_inl_data_seg} in mlx5dv.h, {@code mlx5_wqe_inline_seg} in wqe.h):
 * a 4-byte header followed by the data itself, the whole padded to a multiple of 16 bytes.
 * <pre>
 *        31 30                                                  0
 *       +--+----------------------------------------------------+
 *  0x00 |I |                  byte_count                        |  I = MLX5_INLINE_SEG
 *       +--+----------------------------------------------------+
 *  0x04 |             data ... (byte_count bytes)               |
 *       +-------------------------------------------------------+
 *       |             zero padding up to 16-byte multiple       |
 *       +-------------------------------------------------------+
 * </pre>
 * Data that reaches the end of the send ring continues at the ring's start, like every other part of a WQE.
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class InlineSeg
{
    /** Byte offset of {@code byte_count} in the inline data segment. */
    public static final int BYTE_COUNT_OFFSET = 0;
    /** Byte offset of {@code data} in the inline data segment. */
    public static final int DATA_OFFSET = 4;

    /** Flag in byte_count marking inline data (mlx5dv.h). */
    public static final int MLX5_INLINE_SEG = 0x80000000;

    private InlineSeg()
    {
    }

    /**
     * Number of 16-byte units an inline segment carrying {@code byteCount} bytes occupies.
     *
     * @param byteCount the number of bytes
     * @return the number of 16-byte units
     */
    public static int ds(final int byteCount)
    {
        return (DATA_OFFSET + byteCount + 15) >>> 4;
    }

    /**
     * The header word: byte_count with {@link #MLX5_INLINE_SEG}.
     *
     * @param byteCount the number of bytes
     * @return the header word
     */
    public static int header(final int byteCount)
    {
        return byteCount | MLX5_INLINE_SEG;
    }

    /**
     * The 4-byte header at {@code at} (16-aligned); the caller writes the data and its padding.
     *
     * @param sq the whole send ring
     * @param at offset of the segment in {@code sq}, 16-byte aligned
     * @param byteCount the number of bytes
     */
    public static void setHeader(final MemorySegment sq, final long at, final int byteCount)
    {
        Be.BE32.set(sq, at + BYTE_COUNT_OFFSET, header(byteCount));
    }

    /**
     * {@link #setHeader} at a ring address ({@link RingStores}: only an address inside a live ring).
     *
     * @param address ring address of the segment, 16-byte aligned
     * @param byteCount the number of bytes
     */
    public static void putHeader(final long address, final int byteCount)
    {
        RingStores.putIntBE(address + BYTE_COUNT_OFFSET, header(byteCount));
    }
}
