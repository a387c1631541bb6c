// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.selfcheck;

import io.mlx5j.tool.Mlx5jTool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mlx5j selfcheck}: the encoded bytes of a few work requests, through the dispatcher (no device needed). */
class SelfCheckTest
{
    @Test
    void selfCheckPrintsEveryRequest()
    {
        final ByteArrayOutputStream bos = new ByteArrayOutputStream();
        final int n = SelfCheck.run(new PrintStream(bos, true, StandardCharsets.US_ASCII));
        final String out = bos.toString(StandardCharsets.US_ASCII);
        assertEquals(8, n);
        // RDMA_WRITE ctrl: wqe_index 0, opcode 0x08, qpn 0xabc, ds 3, CQ_UPDATE
        assertTrue(out.contains("  0000: 00 00 00 08 00 0a bc 03  00 00 00 08 00 00 00 00  ctrl"), out);
        assertTrue(out.contains("80 00 00 14 68 65 6c 6c"), out);
        // UD over InfiniBand: qkey, dqpn 0x123, stat_rate_sl 0, fl_mlid 0, rlid 0x17, no GRH
        assertTrue(out.contains("  0150: 11 11 11 11 00 00 00 00  00 00 01 23 00 00 00 17  av"), out);
        // UD over RoCE: sl 3 -> stat_rate_sl 0x06, UDP sport 0xc000 in rlid, MAC, hop_limit 64, sgid_index 3, GID
        assertTrue(out.contains("  01d0: 11 11 11 11 00 00 00 00  00 00 04 56 06 00 c0 00  av"), out);
        assertTrue(out.contains("  01e0: 00 00 00 00 0c 42 a1 b2  c3 d4 00 40 00 30 00 00  av"), out);
        assertTrue(out.contains("  01f0: 00 00 00 00 00 00 00 00  00 00 ff ff c0 a8 01 02  av"), out);
        assertTrue(out.contains("  0020: 00 00 00 00 00 00 01 00  00 00 00 00 00 00 00 00  data (terminator)"), out);
    }

    /** The dispatcher's {@code selfcheck} prints exactly the report, on stdout, and exits 0. */
    @Test
    void dispatcherRunsSelfCheck()
    {
        final ByteArrayOutputStream direct = new ByteArrayOutputStream();
        SelfCheck.run(new PrintStream(direct, true, StandardCharsets.US_ASCII));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Mlx5jTool.run(new String[] {"selfcheck"},
            new PrintStream(out, true, StandardCharsets.US_ASCII),
            new PrintStream(err, true, StandardCharsets.US_ASCII));
        assertEquals(0, status, err.toString(StandardCharsets.US_ASCII));
        assertEquals(direct.toString(StandardCharsets.US_ASCII), out.toString(StandardCharsets.US_ASCII));
        assertEquals("", err.toString(StandardCharsets.US_ASCII));
    }
}
