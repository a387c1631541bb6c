// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The layout of one block as the bench writes it; every field little-endian:
 * <pre>
 *   0  block number (8)  the block's index in the region: a block written to the wrong place fails
 *   8  epoch (4)         random per bench run, never 0: tells this run's writes from an earlier run's
 *  12  generation (4)    the run's write count of this block, 1 for the first: a lost or stale write fails
 *  16  CRC32C (4)        over bytes 0..16 and 20..blockSize (header and payload, not itself)
 *  20  zero (12)
 *  32  payload           a pattern of (block, epoch, generation)
 * </pre>
 * Confinement: one instance per thread (it holds a {@link CRC32C}); the methods allocate nothing.
 */
final class BlockFormat
{
    static final int HEADER = 32;
    static final int BLOCK_OFFSET = 0;
    static final int EPOCH_OFFSET = 8;
    static final int GENERATION_OFFSET = 12;
    static final int CRC_OFFSET = 16;
    static final int CRC_END = 20;

    /** What {@link #check} found. */
    static final int OK = 0;
    static final int ZERO = 1;
    static final int BAD_CRC = 2;
    static final int BAD_BLOCK = 3;
    static final int BAD_EPOCH = 4;
    static final int BAD_GENERATION = 5;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED
        .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED
        .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final CRC32C crc = new CRC32C();
    private final int blockSize;

    BlockFormat(final int blockSize)
    {
        if (blockSize < HEADER + 8 || (blockSize & 7) != 0)
        {
            throw new IllegalArgumentException("block size must be a multiple of 8 and at least " + (HEADER + 8)
                + ", got " + blockSize);
        }
        this.blockSize = blockSize;
    }

    /** Writes block {@code block} (epoch, generation) into {@code seg} at {@code off}; {@code view} covers it. */
    void fill(final MemorySegment seg, final long off, final ByteBuffer view, final long block, final int epoch,
        final int generation)
    {
        seg.set(LONG, off + BLOCK_OFFSET, block);
        seg.set(INT, off + EPOCH_OFFSET, epoch);
        seg.set(INT, off + GENERATION_OFFSET, generation);
        seg.set(INT, off + CRC_OFFSET, 0);
        seg.set(INT, off + CRC_END, 0);
        seg.set(LONG, off + CRC_END + 4, 0L);
        long x = block * 0x9E3779B97F4A7C15L ^ ((long) epoch << 32 | (generation & 0xFFFF_FFFFL));
        for (long i = HEADER; i < blockSize; i += 8)
        {
            x += 0x9E3779B97F4A7C15L;   // splitmix64: every word differs, so a shifted copy fails the CRC too
            long z = x;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            seg.set(LONG, off + i, z ^ (z >>> 31));
        }
        seg.set(INT, off + CRC_OFFSET, crc(view));
    }

    /**
     * Checks the block read into {@code seg} at {@code off}: {@link #OK} if it is block {@code block} with a good
     * CRC and, when {@code generation > 0}, exactly {@code epoch}/{@code generation}; when {@code generation == 0}
     * (not written by this run) any epoch but {@code epoch} with a good CRC is OK (an earlier run's), an all-zero
     * block is {@link #ZERO}. Otherwise the first field that is wrong.
     */
    int check(final MemorySegment seg, final long off, final ByteBuffer view, final long block, final int epoch,
        final int generation)
    {
        if (generation == 0 && allZero(seg, off))
        {
            return ZERO;
        }
        if (seg.get(INT, off + CRC_OFFSET) != crc(view))
        {
            return BAD_CRC;
        }
        if (seg.get(LONG, off + BLOCK_OFFSET) != block)
        {
            return BAD_BLOCK;
        }
        final int e = seg.get(INT, off + EPOCH_OFFSET);
        if (generation == 0)
        {
            return e == epoch ? BAD_EPOCH : OK;
        }
        if (e != epoch)
        {
            return BAD_EPOCH;
        }
        return seg.get(INT, off + GENERATION_OFFSET) == generation ? OK : BAD_GENERATION;
    }

    /** The generation field of the block at {@code off} (for messages). */
    static int generationOf(final MemorySegment seg, final long off)
    {
        return seg.get(INT, off + GENERATION_OFFSET);
    }

    /** The block-number field of the block at {@code off} (for messages). */
    static long blockOf(final MemorySegment seg, final long off)
    {
        return seg.get(LONG, off + BLOCK_OFFSET);
    }

    private boolean allZero(final MemorySegment seg, final long off)
    {
        for (long i = 0; i < blockSize; i += 8)
        {
            if (seg.get(LONG, off + i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    private int crc(final ByteBuffer view)
    {
        crc.reset();
        view.limit(CRC_OFFSET).position(0);
        crc.update(view);
        view.limit(blockSize).position(CRC_END);
        crc.update(view);
        return (int) crc.getValue();
    }

    /** A name for a {@link #check} result. */
    static String describe(final int result)
    {
        return switch (result)
        {
            case OK -> "ok";
            case ZERO -> "all zero (never written)";
            case BAD_CRC -> "CRC32C mismatch";
            case BAD_BLOCK -> "holds another block's number";
            case BAD_EPOCH -> "epoch differs";
            case BAD_GENERATION -> "stale or lost write (generation differs)";
            default -> "result " + result;
        };
    }
}
