package io.mlx5j.doorbell;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The only class that touches {@code jdk.incubator.vector}. Loaded only after {@link WideCopy} has checked that the
 * module is in the boot layer.
 */
final class Vector512
{
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_512;
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
}
