// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The first differing field, by name and value; unwritten bytes skipped. */
class WqeAssertionsTest
{
    private static final String WRITE = "00000508 00012303 0000000a 00000000  00007f0012345678 5eed0001 00000000 "
        + " 00000064 00001234 00007f00aabbcc00";

    @Test
    void namesTheFirstDifferingFieldWithBothValues()
    {
        final ExpectedWqe expected = ExpectedWqe.exactly(Bytes.parseHex(WRITE), QpKind.RC);
        final byte[] actual = Bytes.parseHex(WRITE);
        actual[11] = 0x08;                          // SOLICITED lost
        actual[20] = 0x7e;                          // and a later field wrong too: not the first
        final AssertionError e = assertThrows(AssertionError.class, () -> WqeAssertions.assertWqe(expected, actual));
        assertEquals("ctrl.fm_ce_se: expected CQ_UPDATE|SOLICITED, was CQ_UPDATE", e.getMessage().lines().findFirst()
            .orElseThrow());
        assertTrue(e.getMessage().contains("\nactual WQE:\nctrl      opcode=RDMA_WRITE"), e.getMessage());
        WqeAssertions.assertWqe(expected, Bytes.parseHex(WRITE));
    }

    @Test
    void aMissingSegmentIsReportedAtTheDsField()
    {
        final ExpectedWqe expected = ExpectedWqe.exactly(Bytes.parseHex(WRITE), QpKind.RC);
        final byte[] shorter = Bytes.parseHex("00000508 00012302 0000000a 00000000  00007f0012345678 5eed0001 "
            + "00000000");
        assertEquals("ctrl.ds: expected 3, was 2", WqeAssertions.firstDifference(expected, shorter));
    }

    @Test
    void unwrittenBytesAreSkippedAndQpnAndIndexCanBeMoved()
    {
        final byte[] b = Bytes.parseHex(WRITE);
        final boolean[] unwritten = new boolean[b.length];
        for (int i = 12; i < 16; i++)
        {
            unwritten[i] = true;                    // imm, as the ibv_wr_* path leaves it
        }
        final ExpectedWqe expected = new ExpectedWqe(b, QpKind.RC, unwritten).withQpn(0x456).withWqeIndex(9);
        final byte[] actual = Bytes.parseHex(WRITE.replace("00000508 00012303 0000000a 00000000",
            "00000908 00045603 0000000a 12345678"));
        assertNull(WqeAssertions.firstDifference(expected, actual));
        assertEquals(0x456, expected.qpn());
        assertEquals(9, expected.wqeIndex());
        assertEquals(java.util.List.of("ctrl.imm"), expected.ignoredFields());
        actual[2] = 8;
        assertEquals("ctrl.wqe_index: expected 9, was 8", WqeAssertions.firstDifference(expected, actual));
    }
}
