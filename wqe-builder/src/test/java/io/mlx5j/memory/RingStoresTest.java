// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * RingStores' two ways write and read the same big-endian bytes, and this JVM (started with the export, as every
 * test JVM of this module is) takes the Unsafe way. The tests module's parity-ib run takes the checked way (no
 * export) and its parity-roce run the Unsafe way, each against libmlx5's bytes.
 */
class RingStoresTest
{
    @Test
    void bothWaysWriteTheSameBigEndianBytes()
    {
        final SplittableRandom random = new SplittableRandom(0x5eed);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment a = arena.allocate(256, 64);
            final MemorySegment b = arena.allocate(256, 64);
            for (int round = 0; round < 1000; round++)
            {
                final long at = random.nextInt(256 / 8) * 8L;
                final long v = random.nextLong();
                RingStores.putLongBE(a.address() + at, v);
                RingStores.checkedLongBE(b.address() + at, v);
                final long at4 = random.nextInt(256 / 4) * 4L;
                final int w = random.nextInt();
                RingStores.putIntBE(a.address() + at4, w);
                RingStores.checkedIntBE(b.address() + at4, w);
            }
            assertArrayEquals(b.toArray(ValueLayout.JAVA_BYTE), a.toArray(ValueLayout.JAVA_BYTE));
            // the one load: both ways read back what each store wrote, at every 8-byte offset
            for (long at = 0; at < 256; at += 8)
            {
                final long expect = b.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), at);
                assertEquals(expect, RingStores.getLongBE(a.address() + at), "offset " + at);
                assertEquals(expect, RingStores.checkedGetLongBE(a.address() + at), "offset " + at);
            }
            // a CQE's op_own (a plain load; the poller's barrier follows it) and the CQ consumer index (releasing
            // store), both ways
            for (long at = 0; at < 256; at++)
            {
                assertEquals(b.get(ValueLayout.JAVA_BYTE, at), RingStores.getByte(a.address() + at), "at " + at);
                assertEquals(b.get(ValueLayout.JAVA_BYTE, at), RingStores.checkedGetByte(a.address() + at));
            }
            for (int round = 0; round < 100; round++)
            {
                final long at4 = random.nextInt(256 / 4) * 4L;
                final int w = random.nextInt();
                RingStores.putIntBERelease(a.address() + at4, w);
                RingStores.checkedIntBERelease(b.address() + at4, w);
            }
            assertArrayEquals(b.toArray(ValueLayout.JAVA_BYTE), a.toArray(ValueLayout.JAVA_BYTE));
            // and the bytes are big-endian: most significant byte first
            RingStores.putLongBE(a.address(), 0x0102030405060708L);
            assertEquals(0x01, a.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(0x08, a.get(ValueLayout.JAVA_BYTE, 7));
            assertEquals(0x0102030405060708L, RingStores.getLongBE(a.address()));
            RingStores.putIntBE(a.address() + 8, 0x0a0b0c0d);
            assertEquals(0x0a, a.get(ValueLayout.JAVA_BYTE, 8));
            assertEquals(0x0d, a.get(ValueLayout.JAVA_BYTE, 11));
            RingStores.putIntBERelease(a.address() + 12, 0x01020304);
            assertEquals(0x01, a.get(ValueLayout.JAVA_BYTE, 12));
            assertEquals(0x04, a.get(ValueLayout.JAVA_BYTE, 15));
            a.set(ValueLayout.JAVA_BYTE, 16, (byte)0xf1);
            assertEquals((byte)0xf1, RingStores.getByte(a.address() + 16));
        }
    }

    @Test
    void copiesEveryLengthAndAlignmentExactly()
    {
        // the inline payload copy: any source and destination alignment, lengths across the 8-byte steps and the
        // byte tail; the bytes just outside the destination range must stay as they were
        final SplittableRandom random = new SplittableRandom(0xc0b7);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment src = arena.allocate(512, 64);
            final MemorySegment a = arena.allocate(512, 64);
            final MemorySegment b = arena.allocate(512, 64);
            for (int round = 0; round < 2000; round++)
            {
                for (long i = 0; i < src.byteSize(); i++)
                {
                    src.set(ValueLayout.JAVA_BYTE, i, (byte)random.nextInt());
                }
                a.fill((byte)0x5a);
                b.fill((byte)0x5a);
                final int len = round < 300 ? round % 300 : random.nextInt(300);
                final long from = random.nextInt(16);
                final long to = random.nextInt(16);
                RingStores.copy(src.address() + from, a.address() + to, len);
                MemorySegment.copy(src, from, b, to, len);
                assertArrayEquals(b.toArray(ValueLayout.JAVA_BYTE), a.toArray(ValueLayout.JAVA_BYTE),
                    "length " + len + " from +" + from + " to +" + to);
                RingStores.checkedCopy(src.address() + from, a.address() + to, len);
                assertArrayEquals(b.toArray(ValueLayout.JAVA_BYTE), a.toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }

    @Test
    void thisJvmTakesTheWayItsStartUpAllows()
    {
        final boolean exported = Object.class.getModule().isExported("jdk.internal.misc", RingStores.class.getModule());
        assertEquals(exported && !"false".equals(System.getProperty("mlx5j.ring.unsafe")), RingStores.UNSAFE);
        assertEquals(RingStores.UNSAFE && WideRingCopy.enabled(), RingStores.WIDE);
        assertEquals(RingStores.WIDE ? "Unsafe, 512-bit copies" : RingStores.UNSAFE ? "Unsafe" : "AddressSpace.ALL",
            RingStores.mode());
    }
}
