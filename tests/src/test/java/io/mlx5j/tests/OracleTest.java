// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.testkit.ExpectedWqe;
import io.mlx5j.testkit.Libmlx5Oracle;
import io.mlx5j.testkit.QpKind;
import io.mlx5j.testkit.WorkRequest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The testkit's libmlx5 oracle on the emulated device: what libmlx5 writes, decoded, with its unwritten bytes. */
@Tag("parity")
class OracleTest
{
    @ParameterizedTest
    @EnumSource(Libmlx5Oracle.Api.class)
    @Timeout(60)
    void rdmaWriteWithOneSge(final Libmlx5Oracle.Api api)
    {
        try (Libmlx5Oracle oracle = Libmlx5Oracle.open(QpKind.RC, api, 16, 4, 64))
        {
            final ExpectedWqe e = oracle.expect(WorkRequest.rdmaWrite(0x7f0012345678L, 0x5eed0001)
                .sge(0x7f00aabbcc00L, 100, 0x1234)
                .flags(WorkRequest.IBV_SEND_SIGNALED | WorkRequest.IBV_SEND_SOLICITED));
            assertEquals(String.format("""
                ctrl      opcode=RDMA_WRITE opmod=0x00 wqe_index=0 qpn=0x%06x ds=3 signature=0x00 rsvd=0x0000 \
                fm_ce_se=CQ_UPDATE|SOLICITED imm=0x00000000
                raddr     raddr=0x00007f0012345678 rkey=0x5eed0001 rsvd=0x00000000
                data[0]   byte_count=100 lkey=0x00001234 addr=0x00007f00aabbcc00
                """, oracle.lastQpn()), e.dump().text());
            assertEquals(api == Libmlx5Oracle.Api.WR ? java.util.List.of("ctrl.imm") : java.util.List.of(),
                e.ignoredFields());
        }
    }

    @ParameterizedTest
    @EnumSource(Libmlx5Oracle.Api.class)
    @Timeout(60)
    void inlineSendAndUdSend(final Libmlx5Oracle.Api api)
    {
        try (Libmlx5Oracle oracle = Libmlx5Oracle.open(QpKind.RC, api, 16, 4, 64))
        {
            final long at = oracle.memory().address();
            oracle.memory().setString(0, "hello", java.nio.charset.StandardCharsets.US_ASCII);
            final ExpectedWqe e = oracle.expect(WorkRequest.send().sge(at, 5, oracle.lkey())
                .flags(WorkRequest.IBV_SEND_INLINE | WorkRequest.IBV_SEND_FENCE));
            assertEquals("MLX5_INLINE_SEG|5", e.dump().field("inline.byte_count"));
            assertEquals("68656c6c6f", e.dump().field("inline.data"));
            assertEquals("FENCE", e.dump().field("ctrl.fm_ce_se"));
            assertTrue(e.ignoredFields().contains("inline.pad"), e.ignoredFields().toString());
        }
        try (Libmlx5Oracle oracle = Libmlx5Oracle.open(QpKind.UD, api, 16, 2, 0))
        {
            final ExpectedWqe e = oracle.expect(WorkRequest.of(WorkRequest.IBV_WR_SEND_WITH_IMM).imm(0xdeadbeef)
                .ud(0x123, 0x11111111).sge(oracle.memory().address(), 64, oracle.lkey()));
            assertEquals("0xdeadbeef", e.dump().field("ctrl.imm"));
            assertTrue(e.dump().field("datagram.dqp_dct").endsWith("0x000123"), e.dump().text());
            assertEquals("0x11111111", e.dump().field("datagram.qkey"));
            assertEquals("64", e.dump().field("data[0].byte_count"));
        }
    }
}
