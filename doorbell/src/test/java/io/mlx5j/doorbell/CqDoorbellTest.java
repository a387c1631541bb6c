// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * CQ record and arm doorbell, against words derived by hand from rdma-core v44 providers/mlx5/cq.c mlx5_arm_cq:
 * {@code word = (arm_sn & 3) << 28 | cmd | (ci & 0xffffff)}, {@code dbrec[1] = htobe32(word)},
 * {@code *(cq_uar + 0x20) = htobe64(word << 32 | cqn)}; cmd 0 or 1 << 24 (mlx5dv.h MLX5_CQ_DB_REQ_NOT[_SOL]).
 */
class CqDoorbellTest
{
    private static final HexFormat HEX = HexFormat.of();

    private final MemorySegment db = MemorySegment.ofArray(new long[1]);
    private final MemorySegment uar = MemorySegment.ofArray(new long[4096 / 8]);

    @Test
    void consumerIndexIsBigEndianLow24BitsAtOffset0()
    {
        final CqDoorbell cq = new CqDoorbell(db, uar, 7);
        cq.consumerIndex(0x0123_4567);
        assertEquals("0023456700000000", HEX.formatHex(db.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void armWritesRecordThenSixtyFourBitDoorbellAt0x20()
    {
        final CqDoorbell cq = new CqDoorbell(db, uar, 0x45);
        cq.eventReceived(); // arm_sn 1
        cq.arm(0x0012_3456, true);
        // word = 1 << 28 | 1 << 24 | 0x123456 = 0x11123456
        assertEquals("0000000011123456", HEX.formatHex(db.toArray(ValueLayout.JAVA_BYTE)));
        assertEquals("1112345600000045", HEX.formatHex(uar.asSlice(0x20, 8).toArray(ValueLayout.JAVA_BYTE)));
        final byte[] rest = uar.toArray(ValueLayout.JAVA_BYTE);
        java.util.Arrays.fill(rest, 0x20, 0x28, (byte) 0);
        assertArrayEquals(new byte[4096], rest, "nothing else in the UAR page is touched");
    }

    @Test
    void armSequenceNumberWrapsAtFourAndCiIsMaskedTo24Bits()
    {
        final CqDoorbell cq = new CqDoorbell(db, uar, 0xABCDEF01);
        for (int i = 0; i < 7; i++)
        {
            cq.eventReceived(); // arm_sn 7 -> sn 3
        }
        cq.arm(0xFF00_0001, false);
        // word = 3 << 28 | 0 | 0x000001 = 0x30000001; cqn all 32 bits
        assertEquals("0000000030000001", HEX.formatHex(db.toArray(ValueLayout.JAVA_BYTE)));
        assertEquals("30000001abcdef01", HEX.formatHex(uar.asSlice(0x20, 8).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(0x3000_0001, UarDescriptor.armWord(7, UarDescriptor.MLX5_CQ_DB_REQ_NOT, 0xFF00_0001));
    }

    @Test
    void undersizedSegmentsAreRejected()
    {
        assertThrows(IllegalArgumentException.class, () -> new CqDoorbell(MemorySegment.ofArray(new int[1]), uar, 1));
        assertThrows(IllegalArgumentException.class, () -> new CqDoorbell(db, MemorySegment.ofArray(new long[4]), 1));
    }
}
