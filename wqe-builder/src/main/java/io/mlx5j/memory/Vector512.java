// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The only class that touches {@code jdk.incubator.vector}. Loaded only after {@link WideCopy} has checked that the
 * module is in the boot layer.
 *
 * <p>Thread model: static and stateless; any thread.
 */
final class Vector512
{
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_512;
    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_512;
    /** Every address: {@link #copyBytes} is handed addresses its caller has checked (see {@link WideRingCopy}). */
    private static final MemorySegment ALL = AddressSpace.ALL;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private Vector512()
    {
    }

    /** True if this JVM compiles 512-bit vectors to single instructions (not a scalar or split fallback). */
    static boolean supported()
    {
        return VectorShape.preferredShape().vectorBitSize() >= 512;
    }

    /** One 64-byte block, raw bytes: a single 64-byte load and a single 64-byte store. */
    static void copy64(final MemorySegment src, final long srcOffset, final MemorySegment dst, final long dstOffset)
    {
        LongVector.fromMemorySegment(SPECIES, src, srcOffset, NATIVE).intoMemorySegment(dst, dstOffset, NATIVE);
    }

    /**
     * {@code bytes} bytes from address {@code from} to address {@code to}: one 64-byte load and store per whole
     * block, then one masked load and store for the rest (masked-off lanes are neither read nor written, so nothing
     * past either end is touched).
     */
    static void copyBytes(final long from, final long to, final long bytes)
    {
        long i = 0;
        for (; i + Long.BYTES * 8 <= bytes; i += Long.BYTES * 8)
        {
            ByteVector.fromMemorySegment(BYTES, ALL, from + i, NATIVE).intoMemorySegment(ALL, to + i, NATIVE);
        }
        if (i < bytes)
        {
            final VectorMask<Byte> rest = BYTES.indexInRange(i, bytes);
            ByteVector.fromMemorySegment(BYTES, ALL, from + i, NATIVE, rest)
                .intoMemorySegment(ALL, to + i, NATIVE, rest);
        }
    }
}
