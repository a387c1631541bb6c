// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * C scalar layouts of the x86_64 / aarch64 LP64 ABI used by every struct in this package.
 * <p>
 * ibv_* structs are native byte order; fields typed {@code __be16/__be32/__be64} in the headers (GIDs, GUIDs,
 * immediate data, every PRM segment field) use the big-endian variants so that a plain {@code get} returns the
 * value the device means. {@code uint8_t}/{@code char} are {@link #U8}.
 */
public final class CTypes
{
    /** {@code uint8_t}. */
    public static final ValueLayout.OfByte U8 = JAVA_BYTE;
    /** {@code uint16_t}. */
    public static final ValueLayout.OfShort U16 = JAVA_SHORT;
    /** {@code uint32_t}. */
    public static final ValueLayout.OfInt U32 = JAVA_INT;
    /** {@code int}, {@code unsigned int} and every C {@code enum} in verbs.h (all fit in int on this ABI). */
    public static final ValueLayout.OfInt C_INT = JAVA_INT;
    /** {@code uint64_t}. */
    public static final ValueLayout.OfLong U64 = JAVA_LONG;
    /** {@code size_t}, {@code off_t}, {@code long} on LP64. */
    public static final ValueLayout.OfLong C_LONG = JAVA_LONG;
    /** Any C pointer (8 bytes on LP64). */
    public static final AddressLayout C_POINTER = ADDRESS;
    /** {@code __be16}: a 16-bit field in network byte order. */
    public static final ValueLayout.OfShort BE16 = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@code __be32}: a 32-bit field in network byte order. */
    public static final ValueLayout.OfInt BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@code __be64}: a 64-bit field in network byte order. */
    public static final ValueLayout.OfLong BE64 = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);

    /** glibc x86_64/aarch64 {@code pthread_mutex_t}: 40 bytes, 8-aligned; only its size and alignment matter here. */
    public static final SequenceLayout PTHREAD_MUTEX_T = MemoryLayout.sequenceLayout(5, JAVA_LONG);
    /** glibc {@code pthread_cond_t}: 48 bytes, 8-aligned. */
    public static final SequenceLayout PTHREAD_COND_T = MemoryLayout.sequenceLayout(6, JAVA_LONG);

    private CTypes()
    {
    }

    /**
     * {@code uint8_t name[n]} / {@code char name[n]}.
     *
     * @param n the number of bytes
     * @return the layout
     */
    public static SequenceLayout bytes(final long n)
    {
        return MemoryLayout.sequenceLayout(n, JAVA_BYTE);
    }

    /**
     * Explicit padding, as jextract emits it, so every byte of a struct is accounted for.
     *
     * @param n the number of bytes
     * @return the padding layout
     */
    public static MemoryLayout pad(final long n)
    {
        return MemoryLayout.paddingLayout(n);
    }
}
