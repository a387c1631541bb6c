// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The only place that knows the mlx5 wire byte order, shared by every module that touches device memory (WQEs and
 * CQEs in {@code io.mlx5j.wqe}, doorbell records and UAR stores in {@code doorbell}, rings in {@code direct}). Every
 * PRM field is big-endian ({@code __be16/32/64} in mlx5dv.h).
 * <ul>
 *   <li>Through a segment: the handles. They are aligned: a misaligned offset throws {@link IllegalArgumentException}
 *       instead of tearing a store the NIC might observe half-written. Heap segments must therefore be backed by
 *       {@code long[]}. Coordinates of every handle: {@code (MemorySegment, long offset)}.</li>
 *   <li>By raw address ({@link RingStores}, {@link AddressStores}, whose Unsafe accesses are in native order): the
 *       {@code order} functions, which turn a value into the native-order bits that put it in memory big-endian,
 *       and raw loaded bits back into the value (the swap is its own inverse). A {@code static final} decides, so
 *       on x86-64 each is one {@code bswap} (or a {@code movbe}), on a big-endian host nothing.</li>
 * </ul>
 *
 * <p>Thread model: static and stateless; any thread.
 */
public final class Be
{
    /** One byte (no order). */
    public static final VarHandle U8 = JAVA_BYTE.varHandle();
    /** Big-endian 16-bit word ({@code __be16}). */
    public static final VarHandle BE16 = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    /** Big-endian 32-bit word ({@code __be32}): ctrl words, doorbell records. */
    public static final VarHandle BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    /** Big-endian 64-bit word ({@code __be64}): addresses, the CQ arm doorbell ({@code mmio_write64_be}). */
    public static final VarHandle BE64 = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    /**
     * 8 raw bytes in native order: bytes that are already big-endian on the wire (a WQE being copied to the
     * BlueFlame register) are moved, never re-encoded.
     */
    public static final VarHandle RAW64 = JAVA_LONG.varHandle();

    /** True where the host order differs from the wire's: every x86-64 and little-endian aarch64 host. */
    private static final boolean SWAP = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private Be()
    {
    }

    /**
     * Between a 64-bit wire value and the native-order bits of a raw 8-byte access at its address.
     *
     * @param value the value to store
     * @return {@code value} with its bytes reversed on a little-endian host, unchanged on a big-endian one
     */
    public static long order(final long value)
    {
        return SWAP ? Long.reverseBytes(value) : value;
    }

    /**
     * Between a 32-bit wire value and the native-order bits of a raw 4-byte access at its address.
     *
     * @param value the value to store
     * @return {@code value} with its bytes reversed on a little-endian host, unchanged on a big-endian one
     */
    public static int order(final int value)
    {
        return SWAP ? Integer.reverseBytes(value) : value;
    }

    /**
     * The unsigned byte at {@code at}.
     *
     * @param s the segment to read
     * @param at byte offset in {@code s}
     * @return the byte, 0 to 255
     */
    public static int u8(final MemorySegment s, final long at)
    {
        return (byte) U8.get(s, at) & 0xff;
    }

    /**
     * The big-endian unsigned 16-bit word at {@code at}.
     *
     * @param s the segment to read
     * @param at byte offset in {@code s}
     * @return the word, 0 to 65535
     */
    public static int be16(final MemorySegment s, final long at)
    {
        return (short) BE16.get(s, at) & 0xffff;
    }

    /**
     * The big-endian 32-bit word at {@code at}.
     *
     * @param s the segment to read
     * @param at byte offset in {@code s}
     * @return the word
     */
    public static int be32(final MemorySegment s, final long at)
    {
        return (int) BE32.get(s, at);
    }

    /**
     * The big-endian 64-bit word at {@code at}.
     *
     * @param s the segment to read
     * @param at byte offset in {@code s}
     * @return the word
     */
    public static long be64(final MemorySegment s, final long at)
    {
        return (long) BE64.get(s, at);
    }
}
