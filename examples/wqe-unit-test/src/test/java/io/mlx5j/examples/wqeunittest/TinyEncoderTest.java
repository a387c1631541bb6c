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

    /**
     * A WQE taken from a libmlx5 send ring: ibv_post_send of an RDMA WRITE (1 SGE of 100 bytes at 0x7f00aabbcc00,
     * lkey 0x1234, to 0x7f0012345678 rkey 0x5eed0001, IBV_SEND_SIGNALED) on an RC QP (max_send_wr 16, max_send_sge 1,
     * max_inline_data 64) of the emulated ConnectX (link ib), read from WQEBB 0 of its send ring (mlx5dv_qp.sq.buf)
     * and printed as big-endian 32-bit words. Captured with {@code Libmlx5Oracle.expect} of that work request, whose
     * {@code bytes()} are the ring's bytes; the QP had number 0x001002. {@link #theHexIsWhatLibmlx5Writes} repeats the
     * capture, so the hex cannot drift from libmlx5.
     */
    private static final String FROM_A_LIBMLX5_RING = "00000008 00100203 00000008 00000000 00007f00 12345678 5eed0001 "
        + "00000000 00000064 00001234 00007f00 aabbcc00";

    /** (d) a WQE copied out of a libmlx5 send ring as hex, decoded with PRM names. */
    @Test
    void decodesAWqeFromALibmlx5Ring()
    {
        assertEquals("""
            ctrl      opcode=RDMA_WRITE opmod=0x00 wqe_index=0 qpn=0x001002 ds=3 signature=0x00 rsvd=0x0000 \
            fm_ce_se=CQ_UPDATE imm=0x00000000
            raddr     raddr=0x00007f0012345678 rkey=0x5eed0001 rsvd=0x00000000
            data[0]   byte_count=100 lkey=0x00001234 addr=0x00007f00aabbcc00
            """, WqeDump.send(FROM_A_LIBMLX5_RING, QpKind.RC).text());
    }

    /** The capture of (d), repeated: libmlx5 writes these bytes for that work request (on its own QP number). */
    @Test
    void theHexIsWhatLibmlx5Writes()
    {
        try (Libmlx5Oracle oracle = Libmlx5Oracle.open(QpKind.RC, Libmlx5Oracle.Api.POST_SEND, 16, 1, 64))
        {
            final ExpectedWqe now = oracle.expect(WorkRequest.rdmaWrite(RADDR, RKEY).sge(LADDR, 100, LKEY)
                .flags(WorkRequest.IBV_SEND_SIGNALED));
            final ExpectedWqe captured = ExpectedWqe.exactly(WqeDump.send(FROM_A_LIBMLX5_RING, QpKind.RC).bytes(),
                QpKind.RC).withQpn(now.qpn());
            assertEquals(captured.dump().text(), now.dump().text());
            WqeAssertions.assertWqe(captured, now.bytes());
        }
    }
}
