// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link SendDoorbell#ringLive} (stores by address) against {@link SendDoorbell#ring(int, long, int, int)} (checked
 * segment stores, whose bytes SendDoorbellTest derives by hand from rdma-core's post_send_db): two doorbells over
 * separate native rings with the same contents, rung with the same arguments, must leave the same doorbell record
 * and register bytes after every ring. Runs in both of the module's test executions: without the
 * {@code jdk.internal.misc} export {@code ringLive} must be the checked ring, with it the stores by address.
 */
class SendDoorbellByAddressTest
{
    private static final int RING = 512;    // 8 WQEBBs
    private static final int HALF = 256;    // BlueFlame half: 4 blocks

    private final Arena arena = Arena.ofConfined();
    private final Twin live = new Twin();
    private final Twin checked = new Twin();

    /** A ring, a doorbell record and a two-half register, all native. */
    private final class Twin
    {
        final MemorySegment sq = arena.allocate(RING, 64);
        final MemorySegment db = arena.allocate(8, 8);
        final MemorySegment reg = arena.allocate(2 * HALF, 64);

        Twin()
        {
            for (int i = 0; i < RING; i++)
            {
                sq.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 7 + 3));
            }
        }

        SendDoorbell doorbell(final DoorbellMode mode, final boolean shared)
        {
            return new SendDoorbell(sq, new DoorbellRecord(db), new BlueFlameRegister(reg, HALF, shared), mode);
        }
    }

    @AfterEach
    void close()
    {
        arena.close();
    }

    private static boolean exported()
    {
        return Object.class.getModule().isExported("jdk.internal.misc", SendDoorbell.class.getModule());
    }

    private void assertSameBytes(final String what)
    {
        assertArrayEquals(checked.db.toArray(ValueLayout.JAVA_BYTE), live.db.toArray(ValueLayout.JAVA_BYTE),
            what + ": doorbell record");
        assertArrayEquals(checked.reg.toArray(ValueLayout.JAVA_BYTE), live.reg.toArray(ValueLayout.JAVA_BYTE),
            what + ": register");
    }

    /** Rings both with the same arguments: (nreq, ctrl offset, ds, cur_post) per row. */
    private void ringBoth(final DoorbellMode mode, final boolean shared, final int[][] rings)
    {
        final SendDoorbell a = live.doorbell(mode, shared);
        final SendDoorbell b = checked.doorbell(mode, shared);
        assertEquals(exported(), a.storesByAddress(), "stores by address exactly when jdk.internal.misc is exported");
        for (final int[] r : rings)
        {
            a.ringLive(r[0], r[1], r[2], r[3]);
            b.ring(r[0], r[1], r[2], r[3]);
            assertSameBytes(mode + " ring " + Arrays.toString(r));
        }
    }

    @Test
    void blueFlameBlocksAndHalvesMatchTheCheckedRing()
    {
        // one block, four blocks, four blocks running past the ring end (ctrl 384: blocks 384, 448, 0, 64),
        // and a doorbell covering two WQEs (nreq 2: never BlueFlame); cur_post past 16 bits is masked
        ringBoth(DoorbellMode.BLUEFLAME, false, new int[][] {
            {1, 0, 3, 1}, {1, 64, 16, 5}, {1, 384, 13, 0x1_0009}, {1, 448, 4, 0xffff}, {2, 128, 2, 0x2_0000}});
    }

    @Test
    void eightByteDoorbellsMatchTheCheckedRing()
    {
        ringBoth(DoorbellMode.DOORBELL, false, new int[][] {{1, 0, 3, 1}, {1, 448, 16, 9}, {3, 192, 5, 77}});
    }

    @Test
    void autoModeAndASharedRegisterMatchTheCheckedRing()
    {
        // AUTO: a ctrl-only WQE (ds 1) gets the 8-byte doorbell, larger single WQEs BlueFlame; the shared register
        // takes its lock and flushes inside it
        ringBoth(DoorbellMode.AUTO, true, new int[][] {{1, 0, 1, 1}, {1, 64, 4, 2}, {1, 320, 12, 6}});
    }

    @Test
    void badArgumentsThrowAsInTheCheckedRing()
    {
        final SendDoorbell a = live.doorbell(DoorbellMode.BLUEFLAME, false);
        assertThrows(IllegalArgumentException.class, () -> a.ringLive(1, 32, 3, 1), "ctrl not 64-aligned");
        assertThrows(IllegalArgumentException.class, () -> a.ringLive(1, RING, 3, 1), "ctrl past the ring");
        assertThrows(IllegalArgumentException.class, () -> a.ringLive(1, 0, 0, 1), "ds 0");
        a.ringLive(0, 0, 3, 1);     // nothing to ring: nothing written
        assertArrayEquals(new byte[8], live.db.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void heapMemoryIsNeverStoredByAddress()
    {
        final SendDoorbell heap = new SendDoorbell(MemorySegment.ofArray(new long[RING / 8]),
            new DoorbellRecord(MemorySegment.ofArray(new long[1])),
            new BlueFlameRegister(MemorySegment.ofArray(new long[2 * HALF / 8]), HALF, false), DoorbellMode.BLUEFLAME);
        assertFalse(heap.storesByAddress());
    }
}
