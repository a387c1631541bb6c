// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mlx5j decode}: the testkit's dumps on the command line, from arguments or standard input. */
class DecodeCommandTest
{
    @Test
    void decodesASendWqeFromTheCommandLine()
    {
        final Capture out = new Capture();
        final Capture err = new Capture();
        assertEquals(0, Mlx5jTool.run(new String[] {"decode", "wqe", "0000050a", "00012302", "00000008", "00000000",
            "00000040 00001234 00007f0000001000"}, out.stream, err.stream), err.text());
        assertEquals("""
            ctrl      opcode=SEND opmod=0x00 wqe_index=5 qpn=0x000123 ds=2 signature=0x00 rsvd=0x0000 \
            fm_ce_se=CQ_UPDATE imm=0x00000000
            data[0]   byte_count=64 lkey=0x00001234 addr=0x00007f0000001000
            """, out.text());
    }

    @Test
    void decodesACqeFromStandardInput()
    {
        final Capture out = new Capture();
        final String cqe = "00000000000000000000000000000000 00000000000000000000000000000000\n"
            + "00000000 00000000 00000000 00000000 00000000 0000 51 13 08000123 0003 00 d1\n";
        assertEquals(0, DecodeCommand.run(new String[] {"cqe"},
            new ByteArrayInputStream(cqe.getBytes(StandardCharsets.US_ASCII)), out.stream));
        assertEquals("""
            cqe       opcode=REQ_ERR format=0 se=0 owner=1 wqe_counter=3 signature=0x00 qpn=0x000123
            err       syndrome=REMOTE_ACCESS_ERR vendor_err_synd=0x51 s_wqe_opcode=RDMA_WRITE srqn=0x000000
            """, out.text());
    }

    @Test
    void badInputIsNamed()
    {
        final Capture out = new Capture();
        final Capture err = new Capture();
        assertEquals(2, Mlx5jTool.run(new String[] {"decode", "wqe", "--qp", "xrc", "00"}, out.stream, err.stream));
        assertTrue(err.text().startsWith("mlx5j: unknown QP kind 'xrc' (rc, uc, ud or raw)\nusage: mlx5j decode"),
            err.text());
        final Capture err2 = new Capture();
        assertEquals(1, Mlx5jTool.run(new String[] {"decode", "cqe", "00 11"}, out.stream, err2.stream));
        assertEquals("mlx5j: decode failed: a CQE is 64 bytes (struct mlx5_cqe64), 2 given\n", err2.text());
    }
}
