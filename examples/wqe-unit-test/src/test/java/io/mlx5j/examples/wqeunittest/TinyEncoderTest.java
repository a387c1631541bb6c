// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.examples.wqeunittest;

import io.mlx5j.testkit.EmulatedConnectX;
import io.mlx5j.testkit.ExpectedWqe;
import io.mlx5j.testkit.Libmlx5Oracle;
import io.mlx5j.testkit.QpKind;
import io.mlx5j.testkit.WorkRequest;
import io.mlx5j.testkit.WqeAssertions;
import io.mlx5j.testkit.WqeDump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** TinyEncoder against libmlx5, on the emulated ConnectX (the surefire block in pom.xml preloads it). */
@EmulatedConnectX(link = "ib", devices = 1, strict = true)
class TinyEncoderTest
{
    private static final long RADDR = 0x7f0012345678L;
    private static final int RKEY = 0x5eed0001;
    private static final long LADDR = 0x7f00aabbcc00L;
    private static final int LKEY = 0x1234;

    /** (a) both WQEs match what libmlx5 writes, through either of its posting APIs. */
    @ParameterizedTest
    @EnumSource(Libmlx5Oracle.Api.class)
    void matchesLibmlx5(final Libmlx5Oracle.Api api)
    {
        try (Libmlx5Oracle oracle = Libmlx5Oracle.open(QpKind.RC, api, 16, 1, 64);
             Arena arena = Arena.ofConfined())
        {
            final MemorySegment wqe = arena.allocate(256);
            final ExpectedWqe write = oracle.expect(WorkRequest.rdmaWrite(RADDR, RKEY).sge(LADDR, 100, LKEY)
                .flags(WorkRequest.IBV_SEND_SIGNALED | WorkRequest.IBV_SEND_SOLICITED));
            new TinyEncoder().rdmaWrite(wqe, write.wqeIndex(), write.qpn(), LADDR, LKEY, 100, RADDR, RKEY, true, true);
            WqeAssertions.assertWqe(write, wqe);

            final byte[] hello = "hello, inline".getBytes(StandardCharsets.US_ASCII);
            oracle.memory().copyFrom(MemorySegment.ofArray(hello));
            final ExpectedWqe send = oracle.expect(WorkRequest.send().sge(oracle.memory().address(), hello.length,
                oracle.lkey()).flags(WorkRequest.IBV_SEND_INLINE | WorkRequest.IBV_SEND_SIGNALED));
            new TinyEncoder().sendInline(wqe, 0, send.qpn(), hello, true, false);
            WqeAssertions.assertWqe(send, wqe);
        }
    }

    /** (b) a planted bug that swaps CQ_UPDATE and SOLICITED is reported by field name and both values. */
    @Test
    void aSwappedFlagBitIsNamed()
    {
        final TinyEncoder buggy = new TinyEncoder()
        {
            @Override
            protected int fmCeSe(final boolean signaled, final boolean solicited)
            {
                return (signaled ? SOLICITED : 0) | (solicited ? CQ_UPDATE : 0);
            }
        };
        try (Libmlx5Oracle oracle = Libmlx5Oracle.open(QpKind.RC, Libmlx5Oracle.Api.POST_SEND, 16, 1, 64);
             Arena arena = Arena.ofConfined())
        {
            final MemorySegment wqe = arena.allocate(256);
            final ExpectedWqe write = oracle.expect(WorkRequest.rdmaWrite(RADDR, RKEY).sge(LADDR, 100, LKEY)
                .flags(WorkRequest.IBV_SEND_SIGNALED));
            buggy.rdmaWrite(wqe, write.wqeIndex(), write.qpn(), LADDR, LKEY, 100, RADDR, RKEY, true, false);
            final AssertionError e = assertThrows(AssertionError.class, () -> WqeAssertions.assertWqe(write, wqe));
            assertEquals("ctrl.fm_ce_se: expected CQ_UPDATE, was SOLICITED", e.getMessage().lines().findFirst()
                .orElseThrow());
        }
    }

    /** (d) a WQE copied out of a libmlx5 send ring as hex, decoded with PRM names. */
    @Test
    void decodesAWqeFromALibmlx5Ring()
    {
        // ibv_post_send of an RDMA WRITE, 1 SGE of 100 bytes, SIGNALED, on QP 0x000108: WQEBB 0 of its send ring
        final String ring = "00000008 00010803 00000008 00000000 00007f00 12345678 5eed0001 00000000 "
            + "00000064 00001234 00007f00 aabbcc00";
        assertEquals("""
            ctrl      opcode=RDMA_WRITE opmod=0x00 wqe_index=0 qpn=0x000108 ds=3 signature=0x00 rsvd=0x0000 \
            fm_ce_se=CQ_UPDATE imm=0x00000000
            raddr     raddr=0x00007f0012345678 rkey=0x5eed0001 rsvd=0x00000000
            data[0]   byte_count=100 lkey=0x00001234 addr=0x00007f00aabbcc00
            """, WqeDump.send(ring, QpKind.RC).text());
    }
}
