// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Be#order}: a native-order store of {@code order(v)} leaves exactly the bytes of the big-endian handle's
 * store of {@code v} (most significant byte first), and a native-order load turned back by {@code order} reads
 * {@code v}: the raw accesses by address (RingStores, AddressStores) and the segment handles agree on the wire.
 */
class BeTest
{
    @Test
    void orderPutsValuesInWireOrder()
    {
        final SplittableRandom random = new SplittableRandom(0xbe);
        final MemorySegment raw = MemorySegment.ofArray(new long[1]);
        final MemorySegment wire = MemorySegment.ofArray(new long[1]);
        for (int round = 0; round < 1000; round++)
        {
            final long v = random.nextLong();
            raw.set(ValueLayout.JAVA_LONG, 0, Be.order(v));
            Be.BE64.set(wire, 0L, v);
            assertArrayEquals(wire.toArray(ValueLayout.JAVA_BYTE), raw.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(v, Be.order(raw.get(ValueLayout.JAVA_LONG, 0)));
            final int w = random.nextInt();
            raw.set(ValueLayout.JAVA_INT, 4, Be.order(w));
            Be.BE32.set(wire, 4L, w);
            assertArrayEquals(wire.toArray(ValueLayout.JAVA_BYTE), raw.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(w, Be.order(raw.get(ValueLayout.JAVA_INT, 4)));
        }
        Be.BE64.set(wire, 0L, 0x0102030405060708L);
        assertEquals(0x01, wire.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(0x08, wire.get(ValueLayout.JAVA_BYTE, 7));
    }
}
