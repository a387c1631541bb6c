// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;

/**
 * The one-call posts' big-endian stores at ring addresses (WQE segments, receive entries) and the polls' loads of
 * CQE words, after the post's or poll's one liveness check (the close rule of the direct module's queues and poller
 * makes that safe, as for {@link AddressSpace#ALL}).
 *
 * <p>Two ways, chosen once at start-up. With {@code --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED} (the
 * start-up the README recommends, which also gives the doorbells their sfence) each store is
 * {@code jdk.internal.misc.Unsafe.putLong/putInt(address, value)} through a constant {@link MethodHandle}: one
 * {@code mov}, byte-swapped ({@link Be#order}). Without it, the store goes through {@link AddressSpace#ALL}, whose
 * access still checks the offset against the segment's bounds and the address's alignment and keeps a
 * deoptimisation exit for each. Neither check can fail for an address a post computed from the live ring's base, but
 * each costs instructions and compiled size: the doorbell batch ({@code Mlx5jPostBench.rdmaWriteBatch8})
 * measured 11.3–12.2 ns per WQE through {@link AddressSpace#ALL} and 6.3–6.6 ns with the same stores through Unsafe
 * (per-fork fastest iterations, 2 × 2 forks, jars alternated). Both write the same bytes (RingStoresTest; the send and
 * receive parity tests run once each way). {@code -Dmlx5j.ring.unsafe=false} forces the checked way.
 *
 * <p>Only addresses inside a live ring, computed by the posting thread, may be passed: nothing here checks them.
 */
public final class RingStores
{
    /** Whether stores go through {@code jdk.internal.misc.Unsafe}. */
    public static final boolean UNSAFE;
    /** Whether {@link #copyWide} moves 64 bytes per store ({@link WideRingCopy}); only on the Unsafe way. */
    static final boolean WIDE;
    private static final MethodHandle PUT_LONG;
    private static final MethodHandle PUT_INT;
    private static final MethodHandle GET_LONG;
    private static final MethodHandle GET_BYTE;
    private static final MethodHandle PUT_BYTE;

    static
    {
        final MethodHandle[] handles = probe();
        UNSAFE = handles != null;
        PUT_LONG = handles != null ? handles[0] : null;
        PUT_INT = handles != null ? handles[1] : null;
        GET_LONG = handles != null ? handles[2] : null;
        GET_BYTE = handles != null ? handles[3] : null;
        PUT_BYTE = handles != null ? handles[4] : null;
        WIDE = UNSAFE && WideRingCopy.enabled();
    }

    private RingStores()
    {
    }

    /**
     * {@return {@code "Unsafe, 512-bit copies"}, {@code "Unsafe"} or {@code "AddressSpace.ALL"}: how this JVM writes
     * WQE segments and copies inline data (benchmarks print it)}
     */
    public static String mode()
    {
        return WIDE ? "Unsafe, 512-bit copies" : UNSAFE ? "Unsafe" : "AddressSpace.ALL";
    }

    /**
     * 8 bytes, big-endian, at {@code address} (8-aligned).
     *
     * @param address the native address
     * @param value the value to store
     */
    public static void putLongBE(final long address, final long value)
    {
        if (UNSAFE)
        {
            try
            {
                PUT_LONG.invokeExact(address, Be.order(value));
            }
            catch (final Throwable ex)
            {
                throw unreachable(ex);
            }
        }
        else
        {
            checkedLongBE(address, value);
        }
    }

    /**
     * 8 bytes, big-endian, read at {@code address} (8-aligned): a CQE's words (the direct module's poller: the last
     * 8 bytes of a requester CQE, the words of a raw or striding receive CQE), after the poll call's liveness check,
     * the read of its op_own and the barrier after it.
     *
     * @param address the native address
     * @return the 8 bytes read as a big-endian number
     */
    public static long getLongBE(final long address)
    {
        if (UNSAFE)
        {
            try
            {
                return Be.order((long)GET_LONG.invokeExact(address));
            }
            catch (final Throwable ex)
            {
                throw unreachable(ex);
            }
        }
        return checkedGetLongBE(address);
    }

    /**
     * 1 byte at {@code address}, a plain load: a CQE's op_own (the direct module's poller), after the poll call's
     * liveness check. The reader orders the CQE body after it with the doorbell module's {@code Dma.fromDevice()}
     * (libmlx5's udma_from_device_barrier after its ownership check).
     *
     * @param address the native address
     * @return the byte
     */
    public static byte getByte(final long address)
    {
        if (UNSAFE)
        {
            try
            {
                return (byte)GET_BYTE.invokeExact(address);
            }
            catch (final Throwable ex)
            {
                throw unreachable(ex);
            }
        }
        return checkedGetByte(address);
    }

    /**
     * 4 bytes, big-endian, at {@code address} (4-aligned), with release semantics: a CQ's consumer index in its
     * doorbell record (the direct module's poller), which must not become visible before the reads of the CQEs it
     * frees. The {@link VarHandle#releaseFence()} before a plain store orders as a releasing store.
     *
     * @param address the native address
     * @param value the value to store
     */
    public static void putIntBERelease(final long address, final int value)
    {
        if (UNSAFE)
        {
            VarHandle.releaseFence();
            putIntBE(address, value);
        }
        else
        {
            checkedIntBERelease(address, value);
        }
    }

    /**
     * 4 bytes, big-endian, at {@code address} (4-aligned).
     *
     * @param address the native address
     * @param value the value to store
     */
    public static void putIntBE(final long address, final int value)
    {
        if (UNSAFE)
        {
            try
            {
                PUT_INT.invokeExact(address, Be.order(value));
            }
            catch (final Throwable ex)
            {
                throw unreachable(ex);
            }
        }
        else
        {
            checkedIntBE(address, value);
        }
    }

    /**
     * Zeroes the 8-byte words of the 16-byte unit at {@code unit} (a ring address) that hold padding, the segment's
     * bytes ending at {@code end} (1 to 15) within the unit; the segment's bytes are written over it afterwards. A
     * segment that ends on a unit boundary has no padding and needs no call (JMH: every store into a fresh
     * WQEBB counts).
     *
     * @param unit ring address of the 16-byte unit
     * @param end where the segment's bytes end in the unit, 1 to 15
     */
    public static void zeroPadding(final long unit, final int end)
    {
        if (end < Long.BYTES)
        {
            putLongBE(unit, 0L);
        }
        putLongBE(unit + Long.BYTES, 0L);
    }

    /**
     * Copies {@code bytes} bytes from address {@code from} (an inline payload the caller validated as it validates
     * a gather entry's address) to the ring address {@code to}; either may be unaligned. Unsafe: eight bytes per
     * load and store, then the last up to seven one by one. An inline payload is 16 to a few hundred bytes, where
     * {@code MemorySegment.copy} (and {@code Unsafe.copyMemory} under it) pays a call into the JVM's copy stub plus
     * the segment checks for a few words of work. Checked way: {@code MemorySegment.copy} through {@link
     * AddressSpace#ALL}.
     *
     * @param from source address
     * @param to destination address
     * @param bytes number of bytes to copy
     */
    public static void copy(final long from, final long to, final long bytes)
    {
        if (UNSAFE)
        {
            try
            {
                // four words per turn, then at most one pair and one word, then the bytes: the one-word loop
                // kept a safepoint poll and a branch per word (perfasm of the raw inline send)
                long i = 0;
                for (; i + 4 * Long.BYTES <= bytes; i += 4 * Long.BYTES)
                {
                    PUT_LONG.invokeExact(to + i, (long)GET_LONG.invokeExact(from + i));
                    PUT_LONG.invokeExact(to + i + 8, (long)GET_LONG.invokeExact(from + i + 8));
                    PUT_LONG.invokeExact(to + i + 16, (long)GET_LONG.invokeExact(from + i + 16));
                    PUT_LONG.invokeExact(to + i + 24, (long)GET_LONG.invokeExact(from + i + 24));
                }
                if (i + 2 * Long.BYTES <= bytes)
                {
                    PUT_LONG.invokeExact(to + i, (long)GET_LONG.invokeExact(from + i));
                    PUT_LONG.invokeExact(to + i + 8, (long)GET_LONG.invokeExact(from + i + 8));
                    i += 2 * Long.BYTES;
                }
                if (i + Long.BYTES <= bytes)
                {
                    PUT_LONG.invokeExact(to + i, (long)GET_LONG.invokeExact(from + i));
                    i += Long.BYTES;
                }
                for (; i < bytes; i++)
                {
                    PUT_BYTE.invokeExact(to + i, (byte)GET_BYTE.invokeExact(from + i));
                }
            }
            catch (final Throwable ex)
            {
                throw unreachable(ex);
            }
        }
        else
        {
            checkedCopy(from, to, bytes);
        }
    }

    /**
     * {@link #copy}, by 512-bit vectors when this JVM has them ({@link #WIDE}): the raw send's inline data (the
     * direct module's {@code EthFrameEncoder}). A separate entry point so that the other posts keep {@link #copy} as
     * it compiles today (JMH: routing every copy through one dispatch made SEND 16 B inline about 2 ns slower,
     * JMH).
     *
     * @param from source address
     * @param to destination address
     * @param bytes number of bytes to copy
     */
    public static void copyWide(final long from, final long to, final long bytes)
    {
        if (WIDE)
        {
            WideRingCopy.copy(from, to, bytes);
        }
        else
        {
            copy(from, to, bytes);
        }
    }

    /** The checked way, also called directly by RingStoresTest. */
    static void checkedCopy(final long from, final long to, final long bytes)
    {
        MemorySegment.copy(AddressSpace.ALL, from, AddressSpace.ALL, to, bytes);
    }

    /** The checked way, also called directly by RingStoresTest. */
    static void checkedLongBE(final long address, final long value)
    {
        Be.BE64.set(AddressSpace.ALL, address, value);
    }

    /** The checked way, also called directly by RingStoresTest. */
    static long checkedGetLongBE(final long address)
    {
        return (long)Be.BE64.get(AddressSpace.ALL, address);
    }

    static byte checkedGetByte(final long address)
    {
        return (byte)Be.U8.get(AddressSpace.ALL, address);
    }

    static void checkedIntBERelease(final long address, final int value)
    {
        Be.BE32.setRelease(AddressSpace.ALL, address, value);
    }

    /** The checked way, also called directly by RingStoresTest. */
    static void checkedIntBE(final long address, final int value)
    {
        Be.BE32.set(AddressSpace.ALL, address, value);
    }

    private static IllegalStateException unreachable(final Throwable ex)
    {
        // Unsafe.putLong/putInt on an address throw nothing; a Throwable here is a JVM error passing through.
        return new IllegalStateException("ring store through jdk.internal.misc.Unsafe failed", ex);
    }

    private static MethodHandle[] probe()
    {
        if ("false".equalsIgnoreCase(System.getProperty("mlx5j.ring.unsafe", "true")))
        {
            return null;
        }
        final MethodHandle putLong =
            InternalUnsafe.bound("putLong", MethodType.methodType(void.class, long.class, long.class));
        final MethodHandle putInt =
            InternalUnsafe.bound("putInt", MethodType.methodType(void.class, long.class, int.class));
        final MethodHandle getLong =
            InternalUnsafe.bound("getLong", MethodType.methodType(long.class, long.class));
        final MethodHandle getByte =
            InternalUnsafe.bound("getByte", MethodType.methodType(byte.class, long.class));
        final MethodHandle putByte =
            InternalUnsafe.bound("putByte", MethodType.methodType(void.class, long.class, byte.class));
        return putLong == null || putInt == null || getLong == null || getByte == null || putByte == null ? null :
            new MethodHandle[] {putLong, putInt, getLong, getByte, putByte};
    }
}
