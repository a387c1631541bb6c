// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.IbvRecvWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dvCqInitAttr;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.DeviceCapabilities;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RxHash;
import io.mlx5j.verbs.WorkQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * CQE compression on the raw receive path, judged by libmlx5 on the same traffic: every frame goes to two raw QPs
 * (one multicast group, a flow rule on each: the device fans it out), one with a CQ that libmlx5 creates and polls
 * ({@code ibv_poll_cq}, uncompressed: libmlx5 v44 has no decoder for compressed CQEs, so this is the only way it can
 * judge), one with a CQ created by {@code Context.createCompressedCq} and polled by {@link CqPoller}. Frames go out in
 * bursts of 48 from one post list, so the emulated device compresses them (src/engine/eng_cq.c); each completion of
 * the compressed CQ must equal libmlx5's of the uncompressed one field by field (wr_id, status, opcode, byte_len,
 * wc_flags, qp_num / flow tag, src_qp), find the frame's bytes in place, and carry the checksum (CSUM formats)
 * recomputed here with RFC 1071 sums. 288 frames go round the 256-entry rings, over slots a block skipped. Format 0
 * is the plain CQ: no completion may then be compressed.
 */
@Tag("links")
class CompressedCqeTest
{
    private static final int GROUP = 0xef01030a;
    private static final int PORT = 32011;
    private static final int TAG = 0x1c;
    private static final int RECV_BYTES = 2048;
    private static final int RQ = 64;
    private static final int BURST = 48;
    private static final int ROUNDS = 6;

    private Rig rig;
    private Arena arena;

    @BeforeEach
    void open()
    {
        rig = new Rig();
        Assumptions.assumeTrue(rig.roce, "raw receive needs an Ethernet port (the roce execution runs this)");
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close()
    {
        if (arena != null)
        {
            arena.close();
        }
        rig.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH, Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM,
        Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX})
    void compressedRawReceivesMatchLibmlx5(final int format)
    {
        final CompletionQueue cqL = rig.cq(256);
        final CompletionQueue cqJ = format == 0 ? rig.cq(256) : rig.context.createCompressedCq(256, format);
        assertEquals(format, cqJ.cqeCompression());
        final QueuePair qpL = rawQp(cqL);
        final QueuePair qpJ = rawQp(cqJ);
        final MemoryRegion mr = rig.memory(4L << 20);
        final RecvQueue rqJ = RecvQueue.of(qpJ);
        final CqPoller dcq = CqPoller.of(cqJ).attach(rqJ);
        final long bufL = mr.address();
        final long bufJ = mr.address() + (long)RQ * RECV_BYTES;
        int posted = 0;
        for (; posted < RQ; posted++)
        {
            postBoth(qpL, rqJ, mr, bufL, bufJ, posted);
        }
        rqJ.ring();
        rig.closeLater(FlowRule.builder(qpL, 1).multicast(GROUP).udpDst(PORT).tag(TAG).create());
        rig.closeLater(FlowRule.builder(qpJ, 1).multicast(GROUP).udpDst(PORT).tag(TAG).create());
        final Burst tx = new Burst(mr, mr.address() + (2L << 20));
        final MemorySegment wc = arena.allocate(IbvWc.LAYOUT);
        final Completion c = new Completion();
        int compressed = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            final byte[][] frames = tx.send(round * BURST, 1200, 5);
            for (int i = 0; i < BURST; i++)
            {
                final int seq = round * BURST + i;
                final String what = "format " + format + ", frame " + seq;
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (InlineVerbs.ibv_poll_cq(cqL.pointer(), 1, wc) == 0)
                {
                    assertTrue(System.nanoTime() < deadline, "libmlx5 polls " + what);
                    Thread.onSpinWait();
                }
                Rig.await(dcq, c);
                final String msg = what + ": " + c;
                assertEquals(wc.get(U64, IbvWc.WR_ID_OFFSET), c.wrId(), "wr_id " + msg);
                assertEquals(seq, c.wrId(), "wr_id " + msg);
                assertEquals(wc.get(C_INT, IbvWc.STATUS_OFFSET), c.statusCode(), "status " + msg);
                assertEquals(wc.get(C_INT, IbvWc.OPCODE_OFFSET), c.opcode(), "opcode " + msg);
                assertEquals(wc.get(U32, IbvWc.BYTE_LEN_OFFSET), c.byteLen(), "byte_len " + msg);
                assertEquals(wc.get(C_INT, IbvWc.WC_FLAGS_OFFSET), c.wcFlags(), "wc_flags " + msg);
                assertEquals(wc.get(U32, IbvWc.QP_NUM_OFFSET), c.qpn(), "qp_num " + msg);
                assertEquals(TAG, c.flowTag(), "flow tag " + msg);
                assertEquals(wc.get(U32, IbvWc.SRC_QP_OFFSET), c.srcQp(), "src_qp " + msg);
                assertTrue(c.checksumsOk(), msg);
                final byte[] f = frames[i];
                assertArrayEquals(f, MemorySegment.ofAddress(c.frameAddress()).reinterpret(c.byteLen())
                    .toArray(ValueLayout.JAVA_BYTE), "frame bytes " + msg);
                final int sum = onesComplementSum(f, 14, f.length - 14);
                assertEquals(format == Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH && c.compressed() ? 0 : sum,
                    c.checkSum(), "check_sum " + msg);
                compressed += c.compressed() ? 1 : 0;
            }
            for (int i = 0; i < BURST; i++, posted++)
            {
                postBoth(qpL, rqJ, mr, bufL, bufJ, posted);
            }
            rqJ.ring();
        }
        assertEquals(0, dcq.poll(c), "no completion beyond the frames sent: " + c);
        if (format == 0)
        {
            assertEquals(0, compressed, "a CQ created without compression has no compressed CQE");
        }
        else
        {
            // each burst is one post list, taken by one engine pass: most of it is compressed
            assertTrue(compressed >= ROUNDS * BURST / 2, compressed + " of " + ROUNDS * BURST + " compressed");
        }
    }

    /**
     * Striding WQs: every frame goes to two striding WQs behind two RSS QPs, one completing into a plain CQ, one into
     * a compressed CQ; both polled by CqPoller (libmlx5 v44 decodes no striding CQE; EngineRawCqeParityTest judges
     * the plain striding decoder against what libmlx5 can read). The compressed completions must equal the plain
     * ones: length, stride index (from the mini-CQE in CSUM_STRIDX, counted from the title in the other formats),
     * stride count, WQEs released, RSS hash, frame bytes, and the checksum where the format carries it.
     */
    @ParameterizedTest
    @ValueSource(ints = {Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH, Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM,
        Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX})
    void compressedStridingReceivesMatchPlainOnes(final int format)
    {
        final MemoryRegion mr = rig.memory(4L << 20);
        final StridingRecvQueue qP = stridingWq(rig.cq(1024), mr, 0);
        final StridingRecvQueue qC = stridingWq(rig.context.createCompressedCq(1024, format), mr, 1L << 20);
        final CqPoller dP = CqPoller.of(qP.workQueue().cq()).attach(qP);
        final CqPoller dC = CqPoller.of(qC.workQueue().cq()).attach(qC);
        final Burst tx = new Burst(mr, mr.address() + (3L << 20));
        final Completion p = new Completion();
        final Completion c = new Completion();
        int compressed = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            final byte[][] frames = tx.send(round * BURST, 200, 1);
            for (int i = 0; i < BURST; i++)
            {
                final int seq = round * BURST + i;
                Rig.await(dP, p);
                Rig.await(dC, c);
                final String msg = "format " + format + ", frame " + seq + ": plain " + p + ", compressed " + c;
                assertEquals(frames[i].length, p.byteLen(), msg);
                assertEquals(p.byteLen(), c.byteLen(), "byte_len " + msg);
                assertEquals(p.strideIndex(), c.strideIndex(), "stride index " + msg);
                assertEquals(p.strideCount(), c.strideCount(), "stride count " + msg);
                assertEquals(p.releasedWqes(), c.releasedWqes(), "WQEs released " + msg);
                assertEquals(p.wrId(), c.wrId(), "wr_id " + msg);
                assertEquals(p.rssHash(), c.rssHash(), "RSS hash " + msg);
                assertEquals(p.rssHashType(), c.rssHashType(), "RSS hash type " + msg);
                assertEquals(p.hdsIpExt(), c.hdsIpExt(), msg);
                assertArrayEquals(frames[i], MemorySegment.ofAddress(c.frameAddress()).reinterpret(c.byteLen())
                    .toArray(ValueLayout.JAVA_BYTE), "frame bytes " + msg);
                final int sum = onesComplementSum(frames[i], 14, frames[i].length - 14);
                assertEquals(sum, p.checkSum(), "check_sum, plain " + msg);
                assertEquals(format == Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH && c.compressed() ? 0 : sum,
                    c.checkSum(), "check_sum " + msg);
                assertFalse(p.compressed(), msg);
                compressed += c.compressed() ? 1 : 0;
            }
        }
        assertEquals(0, dC.poll(c), "no completion beyond the frames sent: " + c);
        assertTrue(compressed >= ROUNDS * BURST / 2, compressed + " of " + ROUNDS * BURST + " compressed");
    }

    /**
     * CqPoller.skip() on a compressed CQ: refused while a block is half read; on a title it consumes the whole
     * block and hands its slots back, so that the next frames decode as before.
     */
    @Test
    void skipTakesAWholeBlock()
    {
        final CompletionQueue cq = rig.context.createCompressedCq(256, Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM);
        final QueuePair qp = rawQp(cq);
        final MemoryRegion mr = rig.memory(4L << 20);
        final RecvQueue rq = RecvQueue.of(qp);
        final CqPoller dcq = CqPoller.of(cq).attach(rq);
        for (int i = 0; i < RQ; i++)
        {
            assertTrue(rq.post(i, mr.address() + (long)i * RECV_BYTES, mr.lkey(), RECV_BYTES));
        }
        rq.ring();
        rig.closeLater(FlowRule.builder(qp, 1).multicast(GROUP).udpDst(PORT).tag(TAG).create());
        final Burst tx = new Burst(mr, mr.address() + (2L << 20));
        final Completion c = new Completion();
        tx.send(0, 200, 1);
        Rig.await(dcq, c);
        assertEquals(0, c.wrId());
        if (c.compressed())
        {
            assertThrows(IllegalStateException.class, dcq::skip, "skip in the middle of a block");
        }
        int seen = 1;
        while (seen < BURST)
        {
            Rig.await(dcq, c);
            assertEquals(seen++, c.wrId(), c.toString());
        }
        for (int i = 0; i < BURST; i++)
        {
            assertTrue(rq.post(RQ + i, mr.address() + (long)((RQ + i) % RQ) * RECV_BYTES, mr.lkey(), RECV_BYTES));
        }
        rq.ring();
        tx.send(BURST, 200, 1);
        final long deadline = System.nanoTime() + 10_000_000_000L;
        final int before = dcq.consumerIndex();
        while (!dcq.skip())
        {
            assertTrue(System.nanoTime() < deadline, "no CQE to skip");
            Thread.onSpinWait();
        }
        final int skipped = dcq.consumerIndex() - before;
        assertTrue(skipped >= 2 && skipped <= BURST, "skip() on a title takes its block: " + skipped + " CQEs");
        // the WQEs of the skipped completions are the caller's business: the queue still counts them outstanding,
        // so a later completion is reported for the oldest WQE; its bytes are those of frame BURST + skipped
        if (skipped < BURST)
        {
            Rig.await(dcq, c);
            assertEquals(RawLen.of(BURST + skipped), c.byteLen(), c.toString());
        }
        else
        {
            Rig.assertEmpty(dcq, c);
        }
        // the block's slots were handed back: the ring keeps decoding after them (the RQ has 64 - 48 WQEs free)
        tx.send(2 * BURST, 200, 1);
        Rig.await(dcq, c);
        assertEquals(RawLen.of(skipped < BURST ? BURST + skipped + 1 : 2 * BURST), c.byteLen(), c.toString());
    }

    /** The frame length Burst.send(first, 200, 1) gives frame seq. */
    private static final class RawLen
    {
        static int of(final int seq)
        {
            return 42 + 18 + (seq * 53) % 200;
        }
    }

    private StridingRecvQueue stridingWq(final CompletionQueue cq, final MemoryRegion mr, final long offset)
    {
        final WorkQueue wq = rig.pd.createWq(WorkQueue.builder(cq).maxWr(16).striding(6, 5, true)).ready();
        final QueuePair rss = rig.pd.createRssQp(rig.context.createIndirectionTable(List.of(wq)), RxHash.IPV4_UDP,
            RxHash.defaultKey());
        final StridingRecvQueue q = StridingRecvQueue.of(wq, true);
        for (int k = 0; k < 16; k++)
        {
            assertTrue(q.post(k, mr.address() + offset + k * 2048L, mr.lkey()));
        }
        q.ring();
        rig.closeLater(FlowRule.builder(rss, 1).multicast(GROUP).udpDst(PORT).create());
        return q;
    }

    @Test
    void theDeviceReportsTheFormatsAndRefusesWhatItLacks()
    {
        final DeviceCapabilities caps = DeviceCapabilities.query(rig.context);
        assertEquals(64, caps.cqeCompressionMaxNum());
        assertEquals(7, caps.cqeCompressionFormats());
        assertThrows(IllegalArgumentException.class, () -> rig.context.createCompressedCq(16, 3));
        assertThrows(IllegalArgumentException.class, () -> rig.context.createCompressedCq(16, 8));
        final CompletionQueue cq = rig.context.createCompressedCq(16, Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM);
        final QueuePair rc = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> CqPoller.of(cq).attach(RecvQueue.of(rc)));
        assertTrue(e.getMessage().contains("compressed CQEs"), e.getMessage());
        assertFalse(rig.cq(16).cqeCompression() != 0);
    }

    private QueuePair rawQp(final CompletionQueue cq)
    {
        final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(1).maxRecvWr(RQ)
            .maxRecvSge(1).build());
        qp.activate(1);
        return qp;
    }

    private void postBoth(final QueuePair qpL, final RecvQueue rqJ, final MemoryRegion mr, final long bufL,
        final long bufJ, final int seq)
    {
        final long slot = (long)(seq % RQ) * RECV_BYTES;
        final MemorySegment sge = arena.allocate(IbvSge.LAYOUT);
        sge.set(ValueLayout.JAVA_LONG, IbvSge.ADDR_OFFSET, bufL + slot);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LENGTH_OFFSET, RECV_BYTES);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LKEY_OFFSET, mr.lkey());
        final MemorySegment wr = arena.allocate(IbvRecvWr.LAYOUT);
        wr.set(ValueLayout.JAVA_LONG, IbvRecvWr.WR_ID_OFFSET, seq);
        wr.set(CTypes.C_POINTER, IbvRecvWr.NEXT_OFFSET, MemorySegment.NULL);
        wr.set(CTypes.C_POINTER, IbvRecvWr.SG_LIST_OFFSET, sge);
        wr.set(ValueLayout.JAVA_INT, IbvRecvWr.NUM_SGE_OFFSET, 1);
        assertEquals(0, InlineVerbs.ibv_post_recv(qpL.pointer(), wr, arena.allocate(CTypes.C_POINTER)));
        assertTrue(rqJ.post(seq, bufJ + slot, mr.lkey(), RECV_BYTES));
    }

    /** The 16-bit one's complement sum (RFC 1071), not complemented, of len bytes from off. */
    static int onesComplementSum(final byte[] b, final int off, final int len)
    {
        long s = 0;
        for (int i = 0; i + 1 < len; i += 2)
        {
            s += ((b[off + i] & 0xff) << 8) | (b[off + i + 1] & 0xff);
        }
        if ((len & 1) != 0)
        {
            s += (b[off + len - 1] & 0xff) << 8;
        }
        while ((s >>> 16) != 0)
        {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int)s;
    }

    /** Bursts of frames from one raw send queue: one post list, rung once. */
    private final class Burst
    {
        private final RawSendQueue sq;
        private final CqPoller dcq;
        private final long base;
        private final int lkey;
        private final Completion c = new Completion();

        Burst(final MemoryRegion mr, final long base)
        {
            final CompletionQueue cq = rig.cq(256);
            final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(64).maxRecvWr(1)
                .maxSendSge(1).maxRecvSge(1).maxInlineData(0).build());
            qp.activate(1);
            sq = RawSendQueue.of(qp, DoorbellMode.AUTO);
            dcq = CqPoller.of(cq).attach(sq.queue());
            this.base = base;
            this.lkey = mr.lkey();
        }

        /**
         * Frames first .. first + BURST - 1, with up to maxPayload bytes of payload each, from {@code flows} source
         * ports (one flow: one RSS hash, which a CSUM block needs; the emulator ends it at another hash).
         */
        byte[][] send(final int first, final int maxPayload, final int flows)
        {
            final byte[][] frames = new byte[BURST][];
            for (int i = 0; i < BURST; i++)
            {
                final int seq = first + i;
                final int payload = 18 + (seq * 53) % maxPayload;
                final byte[] f = FrameSender.frame(GROUP, PORT, 7000 + seq % flows, payload, -1, false, (seq & 1) != 0,
                    false, seq);
                frames[i] = f;
                final long at = base + (long)i * RECV_BYTES;
                MemorySegment.ofAddress(at).reinterpret(f.length).copyFrom(MemorySegment.ofArray(f));
                final int flags = SendFlags.SIGNALED | (i == BURST - 1 ? SendFlags.RING : 0);
                assertTrue(sq.send(seq, at, lkey, f.length, flags), "send " + seq);
            }
            for (int i = 0; i < BURST; i++)
            {
                Rig.await(dcq, c);
                if (!c.isSuccess())
                {
                    fail("send completion " + c);
                }
            }
            return frames;
        }
    }
}
