// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvGid;

import java.lang.foreign.MemorySegment;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A 128-bit GID ({@code union ibv_gid}) as two halves in host order: {@code subnetPrefix} (bytes 0..7) and
 * {@code interfaceId} (bytes 8..15) of the big-endian wire value. Immutable value type.
 *
 * @param subnetPrefix bytes 0..7 of the GID, first byte most significant
 * @param interfaceId bytes 8..15 of the GID, first byte most significant
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record Gid(long subnetPrefix, long interfaceId)
{
    public static final Gid ZERO = new Gid(0, 0);

    /** Unaligned: GIDs are also read from byte[]-backed segments (wire messages). */
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Reads a {@code union ibv_gid} at {@code offset}.
     *
     * @param segment the memory holding the GID
     * @param offset byte offset of the GID in {@code segment}
     * @return the GID
     */
    public static Gid read(final MemorySegment segment, final long offset)
    {
        return new Gid(segment.get(BE64, offset + IbvGid.SUBNET_PREFIX_OFFSET),
            segment.get(BE64, offset + IbvGid.INTERFACE_ID_OFFSET));
    }

    /**
     * Writes this GID as a {@code union ibv_gid} at {@code offset}.
     *
     * @param segment the memory holding the GID
     * @param offset byte offset of the GID in {@code segment}
     */
    public void write(final MemorySegment segment, final long offset)
    {
        segment.set(BE64, offset + IbvGid.SUBNET_PREFIX_OFFSET, subnetPrefix);
        segment.set(BE64, offset + IbvGid.INTERFACE_ID_OFFSET, interfaceId);
    }

    /** {@return the 16 bytes in wire order} */
    public byte[] toBytes()
    {
        final byte[] bytes = new byte[16];
        write(MemorySegment.ofArray(bytes), 0);
        return bytes;
    }

    /**
     * The GID of 16 bytes in wire order.
     *
     * @param bytes the 16 GID bytes, wire order
     * @return the GID
     */
    public static Gid fromBytes(final byte[] bytes)
    {
        if (bytes.length != 16)
        {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + bytes.length);
        }
        return read(MemorySegment.ofArray(bytes), 0);
    }

    /**
     * Parses the colon form sysfs and ibv_devinfo print, e.g. {@code fe80:0000:0000:0000:9803:9b03:004d:4500}.
     *
     * @param text the colon form
     * @return the GID
     */
    public static Gid parse(final String text)
    {
        final String[] groups = text.trim().split(":");
        if (groups.length != 8)
        {
            throw new IllegalArgumentException("not a GID (8 groups of 4 hex digits): '" + text + "'");
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++)
        {
            final long group = Long.parseLong(groups[i], 16);
            if (group < 0 || group > 0xffff)
            {
                throw new IllegalArgumentException("GID group out of range in '" + text + "'");
            }
            if (i < 4)
            {
                hi = (hi << 16) | group;
            }
            else
            {
                lo = (lo << 16) | group;
            }
        }
        return new Gid(hi, lo);
    }

    /** {@return whether all 128 bits are 0} */
    public boolean isZero()
    {
        return subnetPrefix == 0 && interfaceId == 0;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++)
        {
            final long half = i < 4 ? subnetPrefix : interfaceId;
            final int group = (int) (half >>> (48 - 16 * (i & 3))) & 0xffff;
            if (i > 0)
            {
                sb.append(':');
            }
            sb.append(String.format("%04x", group));
        }
        return sb.toString();
    }
}
