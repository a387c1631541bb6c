// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exact bytes of the doorbell record and the UAR page, against values derived by hand from rdma-core v44
 * providers/mlx5/qp.c post_send_db (dbrec[MLX5_SND_DBR] = htobe32(cur_post & 0xffff); BlueFlame copy of
 * align(ds * 16, 64) bytes or the first 8 ctrl bytes at bf->reg + bf->offset; bf->offset ^= bf->buf_size).
 */
class SendDoorbellTest
{
    private static final HexFormat HEX = HexFormat.of();

    private final MemorySegment sq = MemorySegment.ofArray(new long[256 / 8]); // 4 WQEBBs
    private final MemorySegment db = MemorySegment.ofArray(new long[1]);
    private final MemorySegment reg = MemorySegment.ofArray(new long[512 / 8]); // two halves of 256

    /** Fill the ring with bytes whose value is their own offset, so every copied byte names its source. */
    private void fillRingWithOffsets()
    {
        for (int i = 0; i < sq.byteSize(); i++)
        {
            sq.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
    }

    private static byte[] range(final int from, final int count)
    {
        final byte[] b = new byte[count];
        for (int i = 0; i < count; i++)
        {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    private byte[] regBytes(final long off, final int len)
    {
        return reg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    private SendDoorbell doorbell(final int bfSize, final DoorbellMode mode)
    {
        return new SendDoorbell(sq, new DoorbellRecord(db), new BlueFlameRegister(reg, bfSize, false), mode);
    }

    @Test
    void doorbellRecordIsBigEndianLow16BitsOfCurPostAtOffset4()
    {
        final SendDoorbell d = doorbell(256, DoorbellMode.DOORBELL);
        d.ring(0, 2, 0x12345);
        // cur_post 0x12345 & 0xffff = 0x2345, big-endian at bytes 4..7; bytes 0..3 (receive counter) untouched
        assertEquals("0000000000002345", HEX.formatHex(db.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void eightByteDoorbellCarriesFirstEightCtrlBytesAndTogglesHalves()
    {
        fillRingWithOffsets();
        final SendDoorbell d = doorbell(256, DoorbellMode.DOORBELL);
        d.ring(128, 4, 3);
        assertArrayEquals(range(128, 8), regBytes(0, 8));
        assertArrayEquals(new byte[504], regBytes(8, 504), "only 8 bytes written");
        assertEquals(256, d.register().offset());
        d.ring(192, 4, 4);
        assertArrayEquals(range(192, 8), regBytes(256, 8), "second post goes to the other half");
        assertArrayEquals(new byte[248], regBytes(264, 248));
        assertEquals(0, d.register().offset());
    }

    @Test
    void blueFlameCopiesWholeWqeInto64ByteBlocksAndHalvesToggle()
    {
        fillRingWithOffsets();
        final SendDoorbell d = doorbell(256, DoorbellMode.BLUEFLAME);
        d.ring(0, 3, 1);       // 48 bytes -> one 64-byte block
        assertArrayEquals(range(0, 64), regBytes(0, 64));
        assertArrayEquals(new byte[448], regBytes(64, 448));
        d.ring(64, 5, 3);      // 80 bytes -> two blocks, into half 1
        assertArrayEquals(range(64, 128), regBytes(256, 128));
        assertArrayEquals(new byte[128], regBytes(384, 128));
        sq.fill((byte) 0x5A);
        d.ring(128, 1, 4);     // back in half 0
        final byte[] expect = new byte[64];
        java.util.Arrays.fill(expect, (byte) 0x5A);
        assertArrayEquals(expect, regBytes(0, 64));
        assertEquals(256, d.register().offset());
    }

    @Test
    void blueFlameCopyOfAWqeThatWrapsContinuesAtTheStartOfTheRing()
    {
        fillRingWithOffsets();
        final SendDoorbell d = doorbell(256, DoorbellMode.BLUEFLAME);
        d.ring(192, 12, 7);    // 192 bytes from WQEBB 3: 192..255 then 0..127
        final byte[] expect = new byte[192];
        System.arraycopy(range(192, 64), 0, expect, 0, 64);
        System.arraycopy(range(0, 128), 0, expect, 64, 128);
        assertArrayEquals(expect, regBytes(0, 192));
        assertArrayEquals(new byte[320], regBytes(192, 320));
    }

    @Test
    void wqeLargerThanBfSizeFallsBackToEightByteDoorbell()
    {
        fillRingWithOffsets();
        final SendDoorbell d = doorbell(128, DoorbellMode.BLUEFLAME);
        assertTrue(d.usesBlueFlame(1, 8));
        assertFalse(d.usesBlueFlame(1, 9));
        d.ring(64, 9, 5);      // 144 > 128
        assertArrayEquals(range(64, 8), regBytes(0, 8));
        assertArrayEquals(new byte[504], regBytes(8, 504));
        assertEquals(128, d.register().offset());
    }

    @Test
    void autoFollowsLibmlx5()
    {
        final SendDoorbell auto = doorbell(256, DoorbellMode.AUTO);
        assertFalse(auto.usesBlueFlame(1, 1), "size > 1");
        assertTrue(auto.usesBlueFlame(1, 2));
        assertTrue(auto.usesBlueFlame(1, 16));
        assertFalse(auto.usesBlueFlame(1, 17), "size <= buf_size / 16");
        assertFalse(auto.usesBlueFlame(2, 4), "nreq == 1");
        final SendDoorbell noBf = doorbell(0, DoorbellMode.AUTO);
        assertFalse(noBf.usesBlueFlame(1, 4), "uuarn 0 / bf.size 0");
        final SendDoorbell bf = doorbell(256, DoorbellMode.BLUEFLAME);
        assertTrue(bf.usesBlueFlame(1, 1));
        assertFalse(bf.usesBlueFlame(3, 4));
        assertFalse(doorbell(256, DoorbellMode.DOORBELL).usesBlueFlame(1, 4));
    }

    @Test
    void registerWithoutBlueFlameBufferAlwaysUsesOffsetZero()
    {
        fillRingWithOffsets();
        final SendDoorbell d = doorbell(0, DoorbellMode.AUTO);
        d.ring(64, 4, 2);
        d.ring(128, 4, 3);
        assertArrayEquals(range(128, 8), regBytes(0, 8));
        assertEquals(0, d.register().offset());
    }

    @Test
    void batchRingsEightByteDoorbellOfLastWqe()
    {
        fillRingWithOffsets();
        final SendDoorbell d = doorbell(256, DoorbellMode.BLUEFLAME);
        d.ring(3, 128, 4, 3);
        assertArrayEquals(range(128, 8), regBytes(0, 8));
        assertArrayEquals(new byte[504], regBytes(8, 504));
        assertEquals("0000000000000003", HEX.formatHex(db.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void zeroRequestsWriteNothing()
    {
        fillRingWithOffsets();
        final SendDoorbell d = doorbell(256, DoorbellMode.BLUEFLAME);
        d.ring(0, 0, 0, 9);
        assertArrayEquals(new byte[8], db.toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(new byte[512], regBytes(0, 512));
        assertEquals(0, d.register().offset());
    }

    @Test
    void badArgumentsAreRejectedBeforeAnyStore()
    {
        final SendDoorbell d = doorbell(256, DoorbellMode.AUTO);
        assertThrows(IllegalArgumentException.class, () -> d.ring(32, 4, 1), "misaligned ctrl");
        assertThrows(IllegalArgumentException.class, () -> d.ring(256, 4, 1), "ctrl past the ring");
        assertThrows(IllegalArgumentException.class, () -> d.ring(-64, 4, 1), "negative ctrl");
        assertThrows(IllegalArgumentException.class, () -> d.ring(Long.MIN_VALUE, 4, 1), "sign bit");
        assertThrows(IllegalArgumentException.class, () -> d.ring(0, 0, 1), "ds 0");
        assertThrows(IllegalArgumentException.class, () -> d.ring(0, 64, 1), "ds > 63");
        assertThrows(IllegalArgumentException.class, () -> d.ring(-1, 0, 4, 1), "negative nreq");
        assertArrayEquals(new byte[8], db.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0, d.register().offset());
        final DoorbellRecord rec = new DoorbellRecord(db);
        final BlueFlameRegister noBf = new BlueFlameRegister(reg, 0, false);
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new SendDoorbell(sq, rec, noBf, DoorbellMode.BLUEFLAME));
        assertTrue(ex.getMessage().contains("bf.size is 0"), ex.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> new SendDoorbell(MemorySegment.ofArray(new long[24]), rec, noBf, DoorbellMode.AUTO), "192 bytes");
        assertThrows(IllegalArgumentException.class, () -> new BlueFlameRegister(reg, 96, false), "not 64-multiple");
        assertThrows(IllegalArgumentException.class, () -> new BlueFlameRegister(reg, 512, false), "too small");
        assertThrows(IllegalArgumentException.class, () -> new DoorbellRecord(MemorySegment.ofArray(new int[1])));
    }

    @Test
    void receiveCounterIsBigEndianLow16BitsAtOffset0()
    {
        final DoorbellRecord rec = new DoorbellRecord(db);
        rec.sendCounter(0xABCDE);
        rec.recvCounter(0x1FFFF);
        assertEquals("0000ffff0000bcde", HEX.formatHex(db.toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(0xBCDE, db.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 4));
    }
}
