// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The poller's queue table: keys that share a home slot, removal from the middle of a run (backward shift, no
 * tombstones), growth, and a random walk against a HashMap.
 */
class QpnTableTest
{
    /** Keys below 2^24 whose home slot in a table of {@code capacity} slots is {@code home}. */
    private static int[] keysWithHome(final int home, final int capacity, final int count)
    {
        final int[] keys = new int[count];
        int n = 0;
        for (int k = 0; n < count; k++)
        {
            if (QpnTable.home(k, capacity) == home)
            {
                keys[n++] = k;
            }
        }
        return keys;
    }

    @Test
    void collidingKeysAreEachFoundAndRemovedFromTheMiddleOfTheirRun()
    {
        final QpnTable t = new QpnTable();
        assertEquals(16, t.capacity());
        // five keys with home 15, the last slot: their run wraps around to slots 0..3
        final int[] keys = keysWithHome(15, 16, 5);
        final Object[] values = new Object[5];
        for (int i = 0; i < 5; i++)
        {
            values[i] = "q" + i;
            assertNull(t.put(keys[i], values[i]));
        }
        assertEquals(16, t.capacity(), "5 of 16: no growth");
        for (int i = 0; i < 5; i++)
        {
            assertSame(values[i], t.get(keys[i]));
        }
        // the second of the run: the three after it shift back, across the wrap
        assertSame(values[1], t.remove(keys[1]));
        assertNull(t.get(keys[1]));
        assertNull(t.remove(keys[1]));
        for (final int i : new int[] {0, 2, 3, 4})
        {
            assertSame(values[i], t.get(keys[i]), "key " + i + " lost after a removal before it in its run");
        }
        assertEquals(keys[0], t.keyAt(15), "the first key stays home");
        assertEquals(4, t.size());
        // a key of another home inside the run (slot 1) survives the removals around it
        final int other = keysWithHome(1, 16, 1)[0];
        t.put(other, "other");
        assertSame(values[0], t.remove(keys[0]));
        assertSame("other", t.get(other));
        for (final int i : new int[] {2, 3, 4})
        {
            assertSame(values[i], t.get(keys[i]));
        }
        assertSame(values[3], t.put(keys[3], "replaced"));
        assertSame("replaced", t.get(keys[3]));
        assertEquals(4, t.size());
    }

    @Test
    void growsAtHalfAndKeepsEveryKey()
    {
        final QpnTable t = new QpnTable();
        for (int k = 0; k < 1024; k++)
        {
            t.put(k * 7 + 0x100, k);
        }
        assertEquals(2048, t.capacity());
        assertEquals(1024, t.size());
        for (int k = 0; k < 1024; k++)
        {
            assertEquals(k, t.get(k * 7 + 0x100));
        }
        assertNull(t.get(0xffffff));
    }

    @Test
    void refusesWhatNoQueueNumberIs()
    {
        final QpnTable t = new QpnTable();
        assertThrows(IllegalArgumentException.class, () -> t.put(-1, "x"));
        assertThrows(IllegalArgumentException.class, () -> t.put(1 << 24, "x"));
        assertThrows(IllegalArgumentException.class, () -> t.put(5, null));
        assertNull(t.get(-1));
    }

    @Test
    void aRandomWalkAgreesWithAHashMap()
    {
        final QpnTable t = new QpnTable();
        final Map<Integer, Object> m = new HashMap<>();
        final Random r = new Random(3);
        for (int step = 0; step < 200_000; step++)
        {
            // few distinct keys in a narrow range: long runs, many collisions, many removals
            final int key = r.nextInt(300) * 64;
            final Object value = "v" + step;
            switch (r.nextInt(3))
            {
                case 0 -> assertSame(m.put(key, value), t.put(key, value));
                case 1 -> assertSame(m.remove(key), t.remove(key));
                default -> assertSame(m.get(key), t.get(key));
            }
            assertEquals(m.size(), t.size());
        }
        for (final Map.Entry<Integer, Object> e : m.entrySet())
        {
            assertSame(e.getValue(), t.get(e.getKey()));
        }
    }
}
