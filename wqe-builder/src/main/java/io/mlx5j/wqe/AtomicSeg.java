// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * Atomic segments, placed after the {@link RaddrSeg}. Sources: {@code struct mlx5_wqe_atomic_seg} (mlx5dv.h) for
 * CAS/FAA, {@code struct mlx5_wqe_masked_atomic_seg} (rdma-core v44 providers/mlx5/wqe.h) for the masked 64-bit
 * compare-and-swap; the 32-bit and fetch-add masked forms follow the PRM "Atomic Operations" layouts (UCX
 * src/uct/ib/mlx5/ib_mlx5.h has the same shapes). libmlx5 v44 itself posts only CAS and FAA.
 * <pre>
 * CAS / FAA (16 bytes, opcode ATOMIC_CS / ATOMIC_FA, opmod 0):
 *  0x00 | swap_add [63:0] (swap value for CAS, add value for FAA)  |
 *  0x08 | compare  [63:0] (compare value for CAS, 0 for FAA)       |
 *
 * Masked CAS 64-bit (32 bytes, opcode ATOMIC_MASKED_CS, opmod 9):
 *  0x00 | swap_add | 0x08 | compare | 0x10 | swap_add_mask | 0x18 | compare_mask |   (each 64 bits)
 *
 * Masked FAA 64-bit (16 bytes, opcode ATOMIC_MASKED_FA, opmod 9):
 *  0x00 | add [63:0] | 0x08 | field_boundary [63:0] |
 *
 * Masked CAS 32-bit (16 bytes, opcode ATOMIC_MASKED_CS, opmod 8):
 *  0x00 | swap | 0x04 | compare | 0x08 | swap_mask | 0x0C | compare_mask |       (each 32 bits)
 *
 * Masked FAA 32-bit (16 bytes, opcode ATOMIC_MASKED_FA, opmod 8):
 *  0x00 | add | 0x04 | field_boundary | 0x08 | reserved (0, 8 bytes) |
 * </pre>
 * All values big-endian. field_boundary marks carry-stop bits: a 1 bit ends the add's carry chain there.
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class AtomicSeg
{
    /** Byte offset of {@code swap_add} in {@code struct mlx5_wqe_atomic_seg} (CAS and FAA). */
    public static final int SWAP_ADD_OFFSET = 0;
    /** Byte offset of {@code compare} in {@code struct mlx5_wqe_atomic_seg} (CAS and FAA). */
    public static final int COMPARE_OFFSET = 8;
    /** Size of {@code struct mlx5_wqe_atomic_seg} in bytes. */
    public static final int LENGTH = 16;

    /** Byte offset of {@code swap_add} in the masked 64-bit compare-and-swap operands. */
    public static final int MASKED64_SWAP_ADD_OFFSET = 0;
    /** Byte offset of {@code compare} in the masked 64-bit compare-and-swap operands. */
    public static final int MASKED64_COMPARE_OFFSET = 8;
    /** Byte offset of {@code swap_add_mask} in the masked 64-bit compare-and-swap operands. */
    public static final int MASKED64_SWAP_ADD_MASK_OFFSET = 16;
    /** Byte offset of {@code compare_mask} in the masked 64-bit compare-and-swap operands. */
    public static final int MASKED64_COMPARE_MASK_OFFSET = 24;
    /** Size in bytes of the masked 64-bit compare-and-swap operands (two 16-byte units). */
    public static final int MASKED64_CS_LENGTH = 32;
    /** Byte offset of {@code add} in the masked 64-bit fetch-and-add operands. */
    public static final int MASKED64_FA_ADD_OFFSET = 0;
    /** Byte offset of {@code field_boundary} in the masked 64-bit fetch-and-add operands. */
    public static final int MASKED64_FA_FIELD_BOUNDARY_OFFSET = 8;
    /** Size in bytes of the masked 64-bit fetch-and-add operands (one 16-byte unit). */
    public static final int MASKED64_FA_LENGTH = 16;

    /** Byte offset of {@code swap} in the masked 32-bit compare-and-swap operands. */
    public static final int MASKED32_SWAP_OFFSET = 0;
    /** Byte offset of {@code compare} in the masked 32-bit compare-and-swap operands. */
    public static final int MASKED32_COMPARE_OFFSET = 4;
    /** Byte offset of {@code swap_mask} in the masked 32-bit compare-and-swap operands. */
    public static final int MASKED32_SWAP_MASK_OFFSET = 8;
    /** Byte offset of {@code compare_mask} in the masked 32-bit compare-and-swap operands. */
    public static final int MASKED32_COMPARE_MASK_OFFSET = 12;
    /** Byte offset of {@code add} in the masked 32-bit fetch-and-add operands. */
    public static final int MASKED32_FA_ADD_OFFSET = 0;
    /** Byte offset of {@code field_boundary} in the masked 32-bit fetch-and-add operands. */
    public static final int MASKED32_FA_FIELD_BOUNDARY_OFFSET = 4;
    /** 8 reserved bytes after the 32-bit masked FAA operands, written as 0. */
    public static final int MASKED32_FA_RESERVED_OFFSET = 8;
    /** Size in bytes of the masked 32-bit operands, either form (one 16-byte unit). */
    public static final int MASKED32_LENGTH = 16;

    private AtomicSeg()
    {
    }

    /**
     * One 16-byte unit of 64-bit operands at {@code at}: swap_add and compare ({@code struct mlx5_wqe_atomic_seg};
     * CAS, FAA with compare 0), and each unit of the masked 64-bit forms (swap_add and compare, then swap_add_mask
     * and compare_mask; masked FAA add and field_boundary). Two 8-byte big-endian stores.
     *
     * @param sq the whole send ring
     * @param at offset of the 16-byte unit in {@code sq}, 16-byte aligned
     * @param swapAdd swap value (CAS), add value (FAA), or the first 8 bytes of a masked unit
     * @param compare compare value (CAS), 0 (FAA), or the second 8 bytes of a masked unit
     */
    public static void set(final MemorySegment sq, final long at, final long swapAdd, final long compare)
    {
        Be.BE64.set(sq, at + SWAP_ADD_OFFSET, swapAdd);
        Be.BE64.set(sq, at + COMPARE_OFFSET, compare);
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     *
     * @param address ring address of the 16-byte unit
     * @param swapAdd swap value (CAS), add value (FAA), or the first 8 bytes of a masked unit
     * @param compare compare value (CAS), 0 (FAA), or the second 8 bytes of a masked unit
     */
    public static void put(final long address, final long swapAdd, final long compare)
    {
        RingStores.putLongBE(address + SWAP_ADD_OFFSET, swapAdd);
        RingStores.putLongBE(address + COMPARE_OFFSET, compare);
    }

    /**
     * Two 32-bit operands as one big-endian 8-byte word: {@code first} at the lower address.
     *
     * @param first the 32-bit operand at the lower address
     * @param second the 32-bit operand 4 bytes higher
     * @return {@code first} in bits 63..32, {@code second} in bits 31..0
     */
    public static long pair32(final int first, final int second)
    {
        return ((long)first << 32) | (second & 0xffffffffL);
    }

    /**
     * The 16-byte unit of a masked 32-bit atomic at {@code at}: CAS swap, compare, swap_mask, compare_mask; FAA
     * add, field_boundary, 0, 0 (the reserved 8 bytes). Two 8-byte big-endian stores.
     *
     * @param sq the whole send ring
     * @param at offset of the 16-byte unit in {@code sq}, 16-byte aligned
     * @param w0 the word at offset 0 (swap for CAS, add for FAA)
     * @param w4 the word at offset 4 (compare for CAS, field_boundary for FAA)
     * @param w8 the word at offset 8 (swap_mask for CAS, 0 for FAA)
     * @param w12 the word at offset 12 (compare_mask for CAS, 0 for FAA)
     */
    public static void setMasked32(final MemorySegment sq, final long at, final int w0, final int w4, final int w8,
        final int w12)
    {
        Be.BE64.set(sq, at + MASKED32_SWAP_OFFSET, pair32(w0, w4));
        Be.BE64.set(sq, at + MASKED32_SWAP_MASK_OFFSET, pair32(w8, w12));
    }

    /**
     * {@link #setMasked32} at a ring address ({@link RingStores}: only an address inside a live ring).
     *
     * @param address ring address of the 16-byte unit
     * @param w0 the word at offset 0 (swap for CAS, add for FAA)
     * @param w4 the word at offset 4 (compare for CAS, field_boundary for FAA)
     * @param w8 the word at offset 8 (swap_mask for CAS, 0 for FAA)
     * @param w12 the word at offset 12 (compare_mask for CAS, 0 for FAA)
     */
    public static void putMasked32(final long address, final int w0, final int w4, final int w8, final int w12)
    {
        RingStores.putLongBE(address + MASKED32_SWAP_OFFSET, pair32(w0, w4));
        RingStores.putLongBE(address + MASKED32_SWAP_MASK_OFFSET, pair32(w8, w12));
    }
}
