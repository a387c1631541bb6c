// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static io.mlx5j.tests.Rig.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mlx5j to mlx5j on the emulated device with the engine on and strict mode on (surefire default execution): every
 * operation posted by {@link SendQueue}, received through {@link io.mlx5j.direct.RecvQueue} /
 * {@link SrqRecvQueue}, completed through {@link CqPoller}; data is compared byte for byte and every completion field
 * that the operation defines is checked. The engine's strict validator must count zero violations. Tagged "links":
 * runs on the InfiniBand and on the Ethernet (RoCE) emulated link.
 */
@Tag("links")
class DirectEndToEndTest
{
    /** 8-byte atomics are host-endian on ConnectX-4+ under Linux (mlx5 core sets atomic_req_8B_endianness_mode). */
    private static final ValueLayout.OfLong HOST64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    /** 4-byte (masked) atomics stay big-endian: the host-endian mode covers 8-byte requests only. */
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Rig rig;
    private final Completion c = new Completion();
    private long violationsBefore;

    @BeforeEach
    void open()
    {
        rig = new Rig();
        violationsBefore = EmulatedDevice.strictViolations();
    }

    @AfterEach
    void close()
    {
        rig.close();
        assertEquals(violationsBefore, EmulatedDevice.strictViolations(),
            "emulator strict-mode violations (see stderr)");
    }

    private static byte[] bytes(final MemorySegment s, final long off, final int len)
    {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    private void expect(final CqPoller cq, final long wrId, final WcStatus status, final int opcode, final int byteLen,
        final int qpn)
    {
        await(cq, c);
        assertEquals(wrId, c.wrId(), c::toString);
        assertEquals(status, c.status(), c::toString);
        if (status == WcStatus.SUCCESS)
        {
            assertEquals(opcode, c.opcode(), c::toString);
            assertEquals(byteLen, c.byteLen(), c::toString);
        }
        assertEquals(qpn, c.qpn(), c::toString);
    }

    @Test
    void rcSendRecvWithImmInvInlineAndSges()
    {
        final Pair p = new Pair(rig, QpType.RC);
        final MemorySegment src = p.mrA.memory();
        final MemorySegment dst = p.mrB.memory();
        Rig.fill(src, 0, 8192, 1);
        final long s = p.mrA.address();
        final long d = p.mrB.address();

        // plain send, 1000 bytes, into a 2-SGE receive (600 + 4096)
        assertTrue(p.rqB.begin(0xb1).sge(d, p.mrB.lkey(), 600).sge(d + 4096, p.mrB.lkey(), 4096).post());
        assertTrue(p.rqB.post(0xb2, d + 10000, p.mrB.lkey(), 256));
        assertTrue(p.rqB.post(0xb3, d + 11000, p.mrB.lkey(), 256));
        assertTrue(p.rqB.post(0xb4, d + 12000, p.mrB.lkey(), 4096));
        assertEquals(4, p.rqB.ring());
        assertTrue(p.sqA.send(0xa1, s, p.mrA.lkey(), 1000, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 0xa1, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        expect(p.dcqB, 0xb1, WcStatus.SUCCESS, WcOpcode.RECV, 1000, p.b.qpn());
        assertEquals(p.a.qpn(), c.srcQp());
        assertEquals(0, c.wcFlags());
        assertArrayEquals(bytes(src, 0, 600), bytes(dst, 0, 600));
        assertArrayEquals(bytes(src, 600, 400), bytes(dst, 4096, 400));

        // send with immediate, inline from two pieces
        assertTrue(p.sqA.begin(0xa2, Mlx5Opcode.MLX5_OPCODE_SEND_IMM, SendFlags.SIGNALED | SendFlags.INLINE)
            .imm(0xcafe0001).sge(s + 100, 0, 50).sge(s + 3000, 0, 70).post());
        assertEquals(1, p.sqA.ring());
        expect(p.dcqA, 0xa2, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        assertEquals(WcOpcode.WC_WITH_IMM, c.wcFlags());
        expect(p.dcqB, 0xb2, WcStatus.SUCCESS, WcOpcode.RECV, 120, p.b.qpn());
        assertEquals(WcOpcode.WC_WITH_IMM, c.wcFlags());
        assertEquals(0xcafe0001, c.imm());
        assertArrayEquals(bytes(src, 100, 50), bytes(dst, 10000, 50));
        assertArrayEquals(bytes(src, 3000, 70), bytes(dst, 10050, 70));

        // send with invalidate (the rkey is reported; the emulated device has no memory windows to invalidate)
        assertTrue(p.sqA.sendInv(0xa3, s + 5000, p.mrA.lkey(), 200, 0x1234567, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 0xa3, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        expect(p.dcqB, 0xb3, WcStatus.SUCCESS, WcOpcode.RECV, 200, p.b.qpn());
        assertEquals(WcOpcode.WC_WITH_INV, c.wcFlags());
        assertEquals(0x1234567, c.invalidatedRkey());
        assertArrayEquals(bytes(src, 5000, 200), bytes(dst, 11000, 200));

        // zero-length send: a ctrl-only WQE, an empty receive
        assertTrue(p.sqA.send(0xa4, s, p.mrA.lkey(), 0, SendFlags.SIGNALED | SendFlags.SOLICITED | SendFlags.RING));
        expect(p.dcqA, 0xa4, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        expect(p.dcqB, 0xb4, WcStatus.SUCCESS, WcOpcode.RECV, 0, p.b.qpn());
    }

    @Test
    void rcRdmaWriteReadAndAtomics()
    {
        final Pair p = new Pair(rig, QpType.RC);
        final MemorySegment la = p.mrA.memory();
        final MemorySegment rb = p.mrB.memory();
        final long l = p.mrA.address();
        final long r = p.mrB.address();
        Rig.fill(la, 0, 16384, 2);
        Rig.fill(rb, 16384, 16384, 3);

        // WRITE of 3 SGEs
        assertTrue(p.sqA.begin(1, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, SendFlags.SIGNALED).remote(r + 64, p.mrB.rkey())
            .sge(l, p.mrA.lkey(), 100).sge(l + 1000, p.mrA.lkey(), 5000).sge(l + 9000, p.mrA.lkey(), 7).post());
        p.sqA.ring();
        expect(p.dcqA, 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, p.a.qpn());
        assertArrayEquals(bytes(la, 0, 100), bytes(rb, 64, 100));
        assertArrayEquals(bytes(la, 1000, 5000), bytes(rb, 164, 5000));
        assertArrayEquals(bytes(la, 9000, 7), bytes(rb, 5164, 7));

        // inline WRITE
        assertTrue(p.sqA.rdmaWrite(2, l + 500, 0, 128, r + 8000, p.mrB.rkey(),
            SendFlags.SIGNALED | SendFlags.INLINE | SendFlags.RING));
        expect(p.dcqA, 2, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, p.a.qpn());
        assertArrayEquals(bytes(la, 500, 128), bytes(rb, 8000, 128));

        // WRITE with immediate consumes a receive and reports byte_len and imm
        assertTrue(p.rqB.post(77, r + 60000, p.mrB.lkey(), 16));
        p.rqB.ring();
        assertTrue(p.sqA.rdmaWriteImm(3, l + 2000, p.mrA.lkey(), 333, r + 9000, p.mrB.rkey(), 0x0badf00d,
            SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 3, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, p.a.qpn());
        assertEquals(WcOpcode.WC_WITH_IMM, c.wcFlags());
        expect(p.dcqB, 77, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 333, p.b.qpn());
        assertEquals(0x0badf00d, c.imm());
        assertArrayEquals(bytes(la, 2000, 333), bytes(rb, 9000, 333));

        // READ into two SGEs
        assertTrue(p.sqA.begin(4, Mlx5Opcode.MLX5_OPCODE_RDMA_READ, SendFlags.SIGNALED).remote(r + 16384,
            p.mrB.rkey()).sge(l + 20000, p.mrA.lkey(), 3000).sge(l + 30000, p.mrA.lkey(), 1096).post());
        p.sqA.ring();
        expect(p.dcqA, 4, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 4096, p.a.qpn());
        assertArrayEquals(bytes(rb, 16384, 3000), bytes(la, 20000, 3000));
        assertArrayEquals(bytes(rb, 19384, 1096), bytes(la, 30000, 1096));

        // atomics on host-order remote words (the old value comes back as stored)
        rb.set(HOST64, 40000, 1000L);
        assertTrue(p.sqA.fetchAdd(5, l + 40000, p.mrA.lkey(), r + 40000, p.mrB.rkey(), 234,
            SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 5, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, 8, p.a.qpn());
        assertEquals(1000L, la.get(HOST64, 40000));
        assertEquals(1234L, rb.get(HOST64, 40000));
        assertTrue(p.sqA.compareSwap(6, l + 40008, p.mrA.lkey(), r + 40000, p.mrB.rkey(), 1234, 777,
            SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 6, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, 8, p.a.qpn());
        assertEquals(1234L, la.get(HOST64, 40008));
        assertEquals(777L, rb.get(HOST64, 40000));
        assertTrue(p.sqA.compareSwap(7, l + 40016, p.mrA.lkey(), r + 40000, p.mrB.rkey(), 1, 2,
            SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 7, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, 8, p.a.qpn());
        assertEquals(777L, la.get(HOST64, 40016));
        assertEquals(777L, rb.get(HOST64, 40000), "failed compare leaves the word");

        // masked atomics: 64-bit CAS only swaps the masked bits when the masked compare matches
        rb.set(HOST64, 40104, 0x1122334455667788L);
        assertTrue(p.sqA.maskedCompareSwap64(8, l + 40104, p.mrA.lkey(), r + 40104, p.mrB.rkey(),
            0x0000000055000000L, 0x00000000ff000000L, 0xaaaaaaaaaaaaaaaaL, 0x00000000000000ffL,
            SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 8, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, 8, p.a.qpn());
        assertEquals(0x1122334455667788L, la.get(HOST64, 40104));
        assertEquals(0x11223344556677aaL, rb.get(HOST64, 40104));
        // masked FAA 64: two 32-bit lanes, the carry stops at bit 31
        rb.set(HOST64, 40200, 0x00000001ffffffffL);
        assertTrue(p.sqA.maskedFetchAdd64(9, l + 40200, p.mrA.lkey(), r + 40200, p.mrB.rkey(), 0x0000000100000001L,
            0x0000000080000000L, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 9, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, 8, p.a.qpn());
        assertEquals(0x00000001ffffffffL, la.get(HOST64, 40200));
        assertEquals(0x0000000200000000L, rb.get(HOST64, 40200));
        // 32-bit forms
        rb.set(BE32, 40300, 0x12345678);
        assertTrue(p.sqA.maskedCompareSwap32(10, l + 40300, p.mrA.lkey(), r + 40300, p.mrB.rkey(), 0x00000078,
            0x000000ff, 0x0000ab00, 0x0000ff00, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 10, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, 4, p.a.qpn());
        assertEquals(0x12345678, la.get(BE32, 40300));
        assertEquals(0x1234ab78, rb.get(BE32, 40300));
        rb.set(BE32, 40400, 0x0000ffff);
        assertTrue(p.sqA.maskedFetchAdd32(11, l + 40400, p.mrA.lkey(), r + 40400, p.mrB.rkey(), 0x00010001,
            0x00008000, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 11, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, 4, p.a.qpn());
        assertEquals(0x0000ffff, la.get(BE32, 40400));
        assertEquals(0x00010000, rb.get(BE32, 40400));

        // NOP completes as IBV_WC_SEND (libmlx5 reports wr_data, 0)
        assertTrue(p.sqA.nop(12, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 12, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        Rig.assertEmpty(p.dcqB, c);
    }

    @Test
    void batchesSelectiveSignalingAndFullRing()
    {
        final Pair p = new Pair(rig, QpType.RC);
        final long l = p.mrA.address();
        final long r = p.mrB.address();
        Rig.fill(p.mrA.memory(), 0, 65536, 4);
        p.sqA.signalEvery(4);
        // unsignaled writes, every 4th one signaled by the queue; one doorbell for 8 WQEs
        for (int i = 0; i < 8; i++)
        {
            assertTrue(p.sqA.rdmaWrite(100 + i, l + i * 64, p.mrA.lkey(), 64, r + i * 64, p.mrB.rkey(), 0));
        }
        assertEquals(8, p.sqA.pending());
        assertEquals(8, p.sqA.ring());
        expect(p.dcqA, 103, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, p.a.qpn());
        expect(p.dcqA, 107, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, p.a.qpn());
        assertEquals(0, p.sqA.outstanding());
        assertArrayEquals(bytes(p.mrA.memory(), 0, 512), bytes(p.mrB.memory(), 0, 512));

        // fill the ring without ringing: the post that does not fit returns false and writes nothing
        p.sqA.signalEvery(0);
        final int capacity = p.sqA.freeWqebb();
        int posted = 0;
        while (p.sqA.rdmaWrite(1000 + posted, l, p.mrA.lkey(), 8, r + 1024, p.mrB.rkey(),
            posted % 16 == 15 ? SendFlags.SIGNALED : 0))
        {
            posted++;
        }
        assertEquals(capacity, posted, "one WQEBB per 2-ds WQE");
        assertEquals(0, p.sqA.freeWqebb());
        assertFalse(p.sqA.nop(1, SendFlags.SIGNALED));
        // the last WQE was unsignaled: a signaled NOP cannot be added, so ring and drain what is signaled
        p.sqA.ring();
        int completed = 0;
        for (int i = 15; i < posted; i += 16)
        {
            expect(p.dcqA, 1000 + i, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, p.a.qpn());
            completed++;
        }
        assertEquals(posted / 16, completed);
        assertEquals(posted % 16, p.sqA.outstanding());
        assertTrue(p.sqA.nop(2, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 2, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        assertEquals(0, p.sqA.outstanding());
    }

    @Test
    void ucWriteAndSend()
    {
        final Pair p = new Pair(rig, QpType.UC);
        final long l = p.mrA.address();
        final long r = p.mrB.address();
        Rig.fill(p.mrA.memory(), 0, 8192, 5);
        assertTrue(p.sqA.rdmaWrite(1, l, p.mrA.lkey(), 4000, r + 100, p.mrB.rkey(),
            SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, p.a.qpn());
        assertArrayEquals(bytes(p.mrA.memory(), 0, 4000), bytes(p.mrB.memory(), 100, 4000));
        assertTrue(p.rqB.post(9, r + 8192, p.mrB.lkey(), 1024));
        p.rqB.ring();
        assertTrue(p.sqA.sendImm(2, l + 77, p.mrA.lkey(), 1000, 42, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 2, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        expect(p.dcqB, 9, WcStatus.SUCCESS, WcOpcode.RECV, 1000, p.b.qpn());
        assertEquals(42, c.imm());
        assertArrayEquals(bytes(p.mrA.memory(), 77, 1000), bytes(p.mrB.memory(), 8192, 1000));
        assertThrows(IllegalArgumentException.class,
            () -> p.sqA.rdmaRead(3, l, p.mrA.lkey(), 8, r, p.mrB.rkey(), SendFlags.SIGNALED));
    }

    @Test
    void udSendWithAddressHandle()
    {
        final Pair p = new Pair(rig, QpType.UD);
        final AddressHandle ah = rig.pd.createAh(rig.path());
        final long l = p.mrA.address();
        final long r = p.mrB.address();
        Rig.fill(p.mrA.memory(), 0, 4096, 6);
        assertTrue(p.rqB.post(5, r, p.mrB.lkey(), 40 + 1024));
        assertTrue(p.rqB.post(6, r + 4096, p.mrB.lkey(), 40 + 1024));
        p.rqB.ring();
        assertTrue(p.sqA.udSend(1, ah, p.b.qpn(), Rig.QKEY, l, p.mrA.lkey(), 700, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 1, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        expect(p.dcqB, 5, WcStatus.SUCCESS, WcOpcode.RECV, 740, p.b.qpn());
        assertEquals(p.a.qpn(), c.srcQp());
        assertEquals(rig.roce ? WcOpcode.WC_GRH : 0, c.wcFlags() & WcOpcode.WC_GRH);
        assertArrayEquals(bytes(p.mrA.memory(), 0, 700), bytes(p.mrB.memory(), 40, 700));
        assertTrue(p.sqA.udSendImm(2, ah, p.b.qpn(), Rig.QKEY, l + 1000, 0, 100, 0x77,
            SendFlags.SIGNALED | SendFlags.INLINE | SendFlags.RING));
        expect(p.dcqA, 2, WcStatus.SUCCESS, WcOpcode.SEND, 0, p.a.qpn());
        expect(p.dcqB, 6, WcStatus.SUCCESS, WcOpcode.RECV, 140, p.b.qpn());
        assertEquals(0x77, c.imm());
        assertArrayEquals(bytes(p.mrA.memory(), 1000, 100), bytes(p.mrB.memory(), 4096 + 40, 100));
        assertThrows(IllegalArgumentException.class,
            () -> p.sqA.send(3, l, p.mrA.lkey(), 10, SendFlags.SIGNALED), "UD send without an address");
    }

    @Test
    void srqReceivesCompleteByWqeCounter()
    {
        final SharedReceiveQueue srq = rig.pd.createSrq(16, 2);
        final var cqA = rig.cq(64);
        final var cqB = rig.cq(64);
        final QueuePair a = rig.pd.createQp(QpConfig.builder(QpType.RC, cqA).build());
        final QueuePair b = rig.pd.createQp(QpConfig.builder(QpType.RC, cqB).maxRecvWr(0).srq(srq).build());
        rig.connect(a, b);
        final SendQueue sq = SendQueue.of(a, DoorbellMode.AUTO);
        final SrqRecvQueue dsrq = SrqRecvQueue.of(srq);
        final CqPoller dcqA = CqPoller.of(cqA).attach(sq);
        final CqPoller dcqB = CqPoller.of(cqB).attach(dsrq, b);
        final var mrA = rig.memory(65536);
        final var mrB = rig.memory(65536);
        Rig.fill(mrA.memory(), 0, 65536, 7);
        int posted = 0;
        while (dsrq.post(500 + posted, mrB.address() + posted * 1024L, mrB.lkey(), 1024))
        {
            posted++;
        }
        assertTrue(posted >= 16, "SRQ took " + posted);
        assertEquals(posted, dsrq.ring());
        for (int round = 0; round < 3 * posted; round++)
        {
            assertTrue(sq.send(round, mrA.address() + round, mrA.lkey(), 100 + round,
                SendFlags.SIGNALED | SendFlags.RING));
            expect(dcqA, round, WcStatus.SUCCESS, WcOpcode.SEND, 0, a.qpn());
            await(dcqB, c);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(100 + round, c.byteLen());
            final long wrId = c.wrId();
            final long buf = wrId - 500;
            assertTrue(buf >= 0 && buf < posted, c::toString);
            assertArrayEquals(bytes(mrA.memory(), round, 100 + round), bytes(mrB.memory(), buf * 1024, 100 + round));
            // give the WQE back (the free list reuses completed WQEs)
            assertTrue(dsrq.post(wrId, mrB.address() + buf * 1024, mrB.lkey(), 1024));
            dsrq.ring();
            assertEquals(posted, dsrq.outstanding());
        }
    }

    @Test
    void remoteAccessErrorThenFlush()
    {
        final Pair p = new Pair(rig, QpType.RC);
        assertTrue(p.sqA.rdmaWrite(1, p.mrA.address(), p.mrA.lkey(), 64, p.mrB.address(), p.mrB.rkey() ^ 0x5a5a00,
            SendFlags.SIGNALED));
        assertTrue(p.sqA.rdmaWrite(2, p.mrA.address(), p.mrA.lkey(), 64, p.mrB.address(), p.mrB.rkey(),
            SendFlags.SIGNALED));
        p.sqA.ring();
        expect(p.dcqA, 1, WcStatus.REM_ACCESS_ERR, 0, 0, p.a.qpn());
        assertTrue(c.vendorSyndrome() != 0 || c.syndrome() == 0x13, c::toString);
        expect(p.dcqA, 2, WcStatus.WR_FLUSH_ERR, 0, 0, p.a.qpn());
    }

    @Test
    void rnrRetryExceeded()
    {
        final Pair p = new Pair(rig, QpType.RC, false,
            new io.mlx5j.verbs.RtsAttributes(0x100, 14, 7, 1, 1), DoorbellMode.AUTO);
        assertTrue(p.sqA.send(1, p.mrA.address(), p.mrA.lkey(), 64, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 1, WcStatus.RNR_RETRY_EXC_ERR, 0, 0, p.a.qpn());
    }

    @Test
    void peerGoneRetryExceeded()
    {
        final Pair p = new Pair(rig, QpType.RC, false,
            new io.mlx5j.verbs.RtsAttributes(0x100, 8, 2, 7, 1), DoorbellMode.AUTO);
        p.b.close();
        assertTrue(p.sqA.rdmaWrite(1, p.mrA.address(), p.mrA.lkey(), 64, p.mrB.address(), p.mrB.rkey(),
            SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqA, 1, WcStatus.RETRY_EXC_ERR, 0, 0, p.a.qpn());
    }

    @Test
    void qpToErrorFlushesSendsAndReceives()
    {
        final Pair p = new Pair(rig, QpType.RC);
        assertTrue(p.rqB.post(11, p.mrB.address(), p.mrB.lkey(), 64));
        assertTrue(p.rqB.post(12, p.mrB.address(), p.mrB.lkey(), 64));
        p.rqB.ring();
        p.b.toError();
        expect(p.dcqB, 11, WcStatus.WR_FLUSH_ERR, 0, 0, p.b.qpn());
        expect(p.dcqB, 12, WcStatus.WR_FLUSH_ERR, 0, 0, p.b.qpn());
        assertTrue(p.sqB.send(13, p.mrB.address(), p.mrB.lkey(), 64, SendFlags.SIGNALED | SendFlags.RING));
        expect(p.dcqB, 13, WcStatus.WR_FLUSH_ERR, 0, 0, p.b.qpn());
    }
}
