// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.MemorySegment;

/**
 * Copies of raw bytes between native addresses by 512-bit vectors: one 64-byte load and store per whole block and
 * one masked load and store for the rest. What the direct path copies inline data into a send WQE with, and the
 * doorbell copies BlueFlame blocks with, when this JVM has the vectors ({@link #enabled()}: the conditions of
 * {@code WideCopy}). The only way into {@code Vector512}, the one class that touches {@code jdk.incubator.vector}.
 *
 * <p>Why: the raw send's inline data (a 42-byte UDP header template and a 64-byte payload, at a WQE offset that is
 * 4 mod 16) takes thirteen 8-byte and two 1-byte stores by words, two stores this way. JMH on that frame
 * ({@code Mlx5jRawSendBench.udpInline}, header MIN_INLINE, jars alternated, 2 forks each, with this class and the
 * padding stores cut to the words that hold padding): BlueFlame 37.1 / 35.3 to 34.8 / 33.6 ns, 8-byte doorbell 31.3 /
 * 31.5 to 29.8 / 29.4 ns (docs/history.md, "WQE stores and post bookkeeping"). The RC posts' 16- and 64-byte
 * inline SENDs do not use it: routed through the same dispatch, SEND 16 B lost about 2 ns. Words in glibc memcpy's
 * shape (blocks whose last one overlaps the one before) were 4 to 7 ns slower than plain words.
 *
 * <p>Nothing is checked here: callers pass addresses they have validated (a ring address from a post's liveness
 * check, a payload address checked as a gather entry's). Stateless; any thread.
 */
public final class WideRingCopy
{
    private WideRingCopy()
    {
    }

    /** {@return whether {@link #copy} may be called in this JVM} */
    public static boolean enabled()
    {
        return WideCopy.ENABLED;
    }

    /**
     * One 64-byte block, raw bytes, as a single 64-byte load and a single 64-byte store: a BlueFlame block (the
     * doorbell module's {@code BlueFlameRegister}). Only when {@link #enabled()}.
     *
     * @param src source segment
     * @param srcOffset offset of the block in {@code src}
     * @param dst destination segment
     * @param dstOffset offset of the block in {@code dst}
     */
    public static void copy64(final MemorySegment src, final long srcOffset, final MemorySegment dst,
        final long dstOffset)
    {
        Vector512.copy64(src, srcOffset, dst, dstOffset);
    }

    /**
     * Copies {@code bytes} bytes from {@code from} to {@code to} (the ranges must not overlap; any alignment).
     * Only when {@link #enabled()}: otherwise the incubator classes it uses may not be loadable.
     *
     * @param from source address
     * @param to destination address
     * @param bytes number of bytes to copy
     */
    public static void copy(final long from, final long to, final long bytes)
    {
        Vector512.copyBytes(from, to, bytes);
    }
}
