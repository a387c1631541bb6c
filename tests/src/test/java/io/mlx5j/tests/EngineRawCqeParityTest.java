// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.IbvCqEx;
import io.mlx5j.bindings.IbvCqInitAttrEx;
import io.mlx5j.bindings.IbvPollCqAttr;
import io.mlx5j.bindings.IbvRecvWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.raw.NicClock;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.CompletionQueue;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CQE parity judged by libmlx5 on CQEs the emulator writes (engine on): frames sent through the emulated port land
 * in a receive queue that libmlx5 owns (a raw QP's RQ posted with ibv_post_recv, a plain WQ behind an RSS QP posted
 * with ibv_post_wq_recv, a striding WQ behind an RSS QP), and each CQE the engine writes into libmlx5's CQ is copied
 * byte for byte into the CQ of an mlx5j twin (a queue of the same kind, posted by mlx5j with the same buffers, that
 * gets no traffic of its own). libmlx5 then reads the CQE, alternately with the legacy {@code ibv_poll_cq} (every
 * {@code ibv_wc} field) and with {@code ibv_start_poll} + {@code ibv_wc_read_*} (opcode, byte_len, wc_flags, qp_num,
 * src_qp, slid, sl, dlid_path_bits, flow_tag, cvlan, completion_ts, completion_wallclock_ns), and {@link CqPoller}
 * must report the same, with {@link NicClock} converting the timestamp as libmlx5's wall clock does (mlx5dv_ts_to_ns).
 * Frames: checksums good (no UDP checksum, or a correct one), bad IPv4 header checksum, bad UDP checksum, an 802.1Q
 * tag (stripped on the WQs), three flow rules (tags 7, none, 0xfedcba); every frame twice, once per libmlx5 API.
 * <p>
 * What libmlx5 v44 cannot judge, and how this test handles it:
 * <ul>
 * <li>the RSS hash: libmlx5 has no reader for it; {@link Completion#rssHash()} is checked against a Toeplitz hash
 *     computed here instead (StridingRssEndToEndTest checks that Toeplitz against Microsoft's vectors);</li>
 * <li>IBV_WC_IP_CSUM_OK on WQ receives: libmlx5 never sets it (cq.c handle_responder / mlx5_cq_read_wc_flags test
 *     MLX5_CQ_FLAGS_RX_CSUM_VALID, which only a raw QP resource sets), so wc_flags agree on 0 and
 *     {@link Completion#checksumsOk()} carries the CQE's verdict, checked against the frame kind;</li>
 * <li>striding CQEs: libmlx5 v44 has no striding decoder (cq.c; mlx5_post_wq_recv cannot even build the WQE). Its
 *     ibv_poll_cq / read_byte_len report the whole byte_cnt word (length | strides &lt;&lt; 16 | filler &lt;&lt; 31),
 *     report a filler CQE as a completion, and take wr_id from a wrid array its own post never filled (one entry per
 *     CQE). So byte_len is compared as that word rebuilt from {@link Completion#byteLen()} and
 *     {@link Completion#strideCount()}, a libmlx5 completion with bit 31 set must be one mlx5j consumed without
 *     reporting, and wr_id is not compared; every other field is.</li>
 * </ul>
 */
@Tag("links")
class EngineRawCqeParityTest
{
    private static final long WC_FLAGS = IbvCqInitAttrEx.IBV_WC_STANDARD_FLAGS |
        IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | IbvCqInitAttrEx.IBV_WC_EX_WITH_CVLAN |
        IbvCqInitAttrEx.IBV_WC_EX_WITH_FLOW_TAG | IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
    private static final int GROUP = 0xef010309;
    private static final int PORT_TAG7 = 32001;
    private static final int PORT_NOTAG = 32002;
    private static final int PORT_TAGBIG = 32003;
    private static final int VLAN_TCI = 0x2123;
    private static final int RECV_BYTES = 2048;

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

    /** One frame kind: what is sent and what the CQE must say about it. */
    private record Kind(int port, int tag, int vlan, boolean badIp, boolean udpCsum, boolean badUdp)
    {
        boolean checksumsOk()
        {
            return !badIp && !badUdp;
        }
    }

    private static final Kind[] KINDS = {
        new Kind(PORT_TAG7, 7, -1, false, false, false),
        new Kind(PORT_TAG7, 7, -1, false, true, false),
        new Kind(PORT_TAG7, 7, -1, true, false, false),
        new Kind(PORT_TAG7, 7, -1, false, false, true),
        new Kind(PORT_TAG7, 7, VLAN_TCI, false, true, false),
        new Kind(PORT_NOTAG, 0, -1, false, true, false),
        new Kind(PORT_TAGBIG, 0xfedcba, -1, false, false, false),
    };

    private void rules(final QueuePair qp)
    {
        rig.closeLater(FlowRule.builder(qp, 1).multicast(GROUP).udpDst(PORT_TAG7).tag(7).create());
        rig.closeLater(FlowRule.builder(qp, 1).multicast(GROUP).udpDst(PORT_NOTAG).create());
        rig.closeLater(FlowRule.builder(qp, 1).multicast(GROUP).udpDst(PORT_TAGBIG).tag(0xfedcba).create());
    }

    @Test
    void rawQpReceiveCqes()
    {
        final CompletionQueue cqL = rig.context.createCqEx(256, WC_FLAGS);
        final CompletionQueue cqJ = rig.cq(256);
        final QueuePair qpL = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cqL).maxSendWr(1).maxRecvWr(128)
            .maxRecvSge(1).build());
        final QueuePair qpJ = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cqJ).maxSendWr(1).maxRecvWr(128)
            .maxRecvSge(1).build());
        qpL.activate(1);
        qpJ.activate(1);
        final MemoryRegion mr = rig.memory(1 << 20);
        final RecvQueue rqJ = RecvQueue.of(qpJ);
        for (int i = 0; i < 128; i++)
        {
            final long buf = mr.address() + i * (long) RECV_BYTES;
            assertEquals(0, InlineVerbs.ibv_post_recv(qpL.pointer(), recvWr(i, buf, mr.lkey()),
                arena.allocate(CTypes.C_POINTER)));
            assertTrue(rqJ.post(i, buf, mr.lkey(), RECV_BYTES));
        }
        rqJ.ring();
        rules(qpL);
        run(cqL, CqPoller.of(cqJ).attach(rqJ), Mode.QP);
    }

    @Test
    void plainWqReceiveCqes()
    {
        final CompletionQueue cqL = rig.context.createCqEx(256, WC_FLAGS);
        final CompletionQueue cqJ = rig.cq(256);
        final WorkQueue wqL = rig.pd.createWq(WorkQueue.builder(cqL).maxWr(128).cvlanStripping(true)).ready();
        final WorkQueue wqJ = rig.pd.createWq(WorkQueue.builder(cqJ).maxWr(128).cvlanStripping(true)).ready();
        final QueuePair rss = rig.pd.createRssQp(rig.context.createIndirectionTable(List.of(wqL)), RxHash.IPV4_UDP,
            RxHash.defaultKey());
        final MemoryRegion mr = rig.memory(1 << 20);
        final RecvQueue rqJ = RecvQueue.of(wqJ);
        for (int i = 0; i < 128; i++)
        {
            final long buf = mr.address() + i * (long) RECV_BYTES;
            assertEquals(0, InlineVerbs.ibv_post_wq_recv(wqL.pointer(), recvWr(i, buf, mr.lkey()),
                arena.allocate(CTypes.C_POINTER)));
            assertTrue(rqJ.post(i, buf, mr.lkey(), RECV_BYTES));
        }
        rqJ.ring();
        rules(rss);
        run(cqL, CqPoller.of(cqJ).attach(rqJ), Mode.WQ);
    }

    @Test
    void stridingWqReceiveCqes()
    {
        final CompletionQueue cqL = rig.context.createCqEx(256, WC_FLAGS);
        final CompletionQueue cqJ = rig.cq(256);
        final WorkQueue wqL = rig.pd.createWq(WorkQueue.builder(cqL).maxWr(64).cvlanStripping(true)
            .striding(6, 3, true)).ready();
        final WorkQueue wqJ = rig.pd.createWq(WorkQueue.builder(cqJ).maxWr(64).cvlanStripping(true)
            .striding(6, 3, true)).ready();
        final QueuePair rss = rig.pd.createRssQp(rig.context.createIndirectionTable(List.of(wqL)), RxHash.IPV4_UDP,
            RxHash.defaultKey());
        final MemoryRegion mr = rig.memory(1 << 20);
        // libmlx5 cannot build striding WQEs: mlx5j posts the libmlx5 twin's too (the engine's input, not judged)
        final StridingRecvQueue qL = StridingRecvQueue.of(wqL, false);
        final StridingRecvQueue qJ = StridingRecvQueue.of(wqJ, false);
        for (int i = 0; i < 64; i++)
        {
            assertTrue(qL.post(i, mr.address() + i * 512L, mr.lkey()));
            assertTrue(qJ.post(i, mr.address() + i * 512L, mr.lkey()));
        }
        qL.ring();
        qJ.ring();
        rules(rss);
        run(cqL, CqPoller.of(cqJ).attach(qJ), Mode.STRIDING);
    }

    private enum Mode
    {
        QP, WQ, STRIDING
    }

    private void run(final CompletionQueue cqL, final CqPoller dcq, final Mode mode)
    {
        final FrameSender tx = new FrameSender(rig, GROUP, PORT_TAG7);
        final CompletionQueue cqJ = dcq.completionQueue();
        final MemorySegment cqx = cqL.pointer();
        final MemorySegment pollAttr = arena.allocate(IbvPollCqAttr.LAYOUT);
        final MemorySegment wc = arena.allocate(IbvWc.LAYOUT);
        final Completion c = new Completion();
        int produced = 0;
        int fillers = 0;
        int legacy = 0;
        int extended = 0;
        int seq = 0;
        try (NicClock clock = NicClock.of(rig.context))
        {
            for (int round = 0; round < 3; round++)
            {
                for (final Kind k : KINDS)
                {
                    for (int twice = 0; twice < 2; twice++, seq++)
                    {
                        final int payload = 20 + (seq * 53) % (mode == Mode.STRIDING ? 400 : 1000);
                        final byte[] frame = FrameSender.frame(GROUP, k.port, 7000 + seq, payload, k.vlan, k.badIp,
                            k.udpCsum, k.badUdp, seq);
                        tx.sendBytes(seq, frame);
                        final boolean strip = k.vlan >= 0 && mode != Mode.QP;
                        final byte[] landed = strip ? untag(frame) : frame;
                        final boolean useLegacy = twice == 0;
                        // the frame's CQE, after any filler CQEs the engine writes first
                        while (true)
                        {
                            CqeMirror.mirror(cqL, cqJ, produced++);
                            final String what = mode + " frame " + seq + " " + k + (useLegacy ? " ibv_poll_cq" :
                                " ibv_start_poll");
                            final long byteLenL;
                            if (useLegacy)
                            {
                                wc.fill((byte) 0);
                                assertEquals(1, InlineVerbs.ibv_poll_cq(cqx, 1, wc), "libmlx5 polls " + what);
                                byteLenL = wc.get(U32, IbvWc.BYTE_LEN_OFFSET) & 0xffffffffL;
                            }
                            else
                            {
                                assertEquals(0, InlineVerbs.ibv_start_poll(cqx, pollAttr), "libmlx5 polls " + what);
                                byteLenL = readInt(cqx, IbvCqEx.READ_BYTE_LEN_OFFSET) & 0xffffffffL;
                            }
                            if (mode == Mode.STRIDING && (byteLenL & 0x80000000L) != 0)
                            {
                                // a filler: libmlx5 reports it as a completion, mlx5j consumes it silently
                                if (!useLegacy)
                                {
                                    InlineVerbs.ibv_end_poll(cqx);
                                }
                                assertEquals(0, dcq.poll(c), "mlx5j does not report the filler " + what);
                                fillers++;
                                continue;
                            }
                            assertEquals(1, dcq.poll(c), "mlx5j polls " + what);
                            final String msg = what + ": " + c;
                            if (useLegacy)
                            {
                                legacy(wc, c, mode, msg);
                                legacy++;
                            }
                            else
                            {
                                extended(cqx, c, mode, clock, msg);
                                InlineVerbs.ibv_end_poll(cqx);
                                extended++;
                            }
                            final long expectLen = mode == Mode.STRIDING
                                ? c.byteLen() | (long) c.strideCount() << 16 : c.byteLen();
                            assertEquals(byteLenL, expectLen, "byte_len " + msg);
                            // beyond libmlx5: the frame in place, the checksum verdict, header types, RSS hash
                            assertEquals(landed.length, c.byteLen(), msg);
                            assertArrayEquals(landed, MemorySegment.ofAddress(c.frameAddress()).reinterpret(c.byteLen())
                                .toArray(ValueLayout.JAVA_BYTE), "frame bytes " + msg);
                            assertEquals(k.checksumsOk(), c.checksumsOk(), "L3/L4 checksum verdict " + msg);
                            assertEquals(2, c.l3Type(), msg);
                            assertEquals(2, c.l4Type(), msg);
                            assertEquals(strip, c.vlanStripped(), msg);
                            if (mode != Mode.QP)
                            {
                                final int h = FrameSender.toeplitz(RxHash.defaultKey(),
                                    FrameSender.ipv4UdpTuple(FrameSender.SRC_IP, GROUP, 7000 + seq, k.port));
                                assertEquals(h, c.rssHash(), "RSS hash " + msg);
                                assertEquals(0xa5, c.rssHashType(), "RSS hash type " + msg);
                            }
                            break;
                        }
                    }
                }
            }
        }
        assertEquals(KINDS.length * 3, legacy);
        assertEquals(KINDS.length * 3, extended);
        if (mode == Mode.STRIDING)
        {
            assertTrue(fillers > 0, "the frame sizes make the engine write fillers");
        }
    }

    /** Every ibv_wc field libmlx5's ibv_poll_cq filled. */
    private static void legacy(final MemorySegment wc, final Completion c, final Mode mode, final String msg)
    {
        if (mode != Mode.STRIDING)
        {
            assertEquals(wc.get(U64, IbvWc.WR_ID_OFFSET), c.wrId(), "wr_id " + msg);
        }
        assertEquals(wc.get(C_INT, IbvWc.STATUS_OFFSET), c.statusCode(), "status " + msg);
        assertEquals(wc.get(C_INT, IbvWc.OPCODE_OFFSET), c.opcode(), "opcode " + msg);
        assertEquals(wc.get(U32, IbvWc.VENDOR_ERR_OFFSET), c.vendorSyndrome(), "vendor_err " + msg);
        assertEquals(wc.get(C_INT, IbvWc.WC_FLAGS_OFFSET), c.wcFlags(), "wc_flags " + msg);
        assertEquals(wc.get(U32, IbvWc.IMM_DATA_OFFSET), c.imm(), "imm_data " + msg);
        assertEquals(wc.get(U32, IbvWc.QP_NUM_OFFSET), c.qpn(), "qp_num (the flow tag) " + msg);
        assertEquals(wc.get(U32, IbvWc.QP_NUM_OFFSET), c.flowTag(), "flow tag " + msg);
        assertEquals(wc.get(U32, IbvWc.SRC_QP_OFFSET), c.srcQp(), "src_qp " + msg);
        assertEquals(wc.get(U16, IbvWc.PKEY_INDEX_OFFSET) & 0xffff, c.pkeyIndex(), "pkey_index " + msg);
        assertEquals(wc.get(U16, IbvWc.SLID_OFFSET) & 0xffff, c.slid(), "slid " + msg);
        assertEquals(wc.get(U8, IbvWc.SL_OFFSET) & 0xff, c.sl(), "sl " + msg);
        assertEquals(wc.get(U8, IbvWc.DLID_PATH_BITS_OFFSET) & 0xff, c.dlidPathBits(), "dlid_path_bits " + msg);
        if (mode == Mode.QP)
        {
            assertEquals(c.checksumsOk(), (c.wcFlags() & 4) != 0, "IBV_WC_IP_CSUM_OK on a raw QP " + msg);
        }
    }

    /** What ibv_start_poll and the ibv_wc_read_* functions report. */
    private static void extended(final MemorySegment cqx, final Completion c, final Mode mode, final NicClock clock,
        final String msg)
    {
        final MemorySegment cq = cqx.reinterpret(IbvCqEx.LAYOUT.byteSize());
        if (mode != Mode.STRIDING)
        {
            assertEquals(cq.get(ValueLayout.JAVA_LONG, IbvCqEx.WR_ID_OFFSET), c.wrId(), "wr_id " + msg);
        }
        assertEquals(cq.get(ValueLayout.JAVA_INT, IbvCqEx.STATUS_OFFSET), c.statusCode(), "status " + msg);
        assertEquals(readInt(cqx, IbvCqEx.READ_OPCODE_OFFSET), c.opcode(), "opcode " + msg);
        assertEquals(readInt(cqx, IbvCqEx.READ_WC_FLAGS_OFFSET), c.wcFlags(), "wc_flags " + msg);
        assertEquals(readInt(cqx, IbvCqEx.READ_QP_NUM_OFFSET), c.qpn(), "qp_num " + msg);
        assertEquals(readInt(cqx, IbvCqEx.READ_FLOW_TAG_OFFSET), c.flowTag(), "flow_tag " + msg);
        assertEquals(readInt(cqx, IbvCqEx.READ_SRC_QP_OFFSET), c.srcQp(), "src_qp " + msg);
        assertEquals(readInt(cqx, IbvCqEx.READ_SLID_OFFSET), c.slid(), "slid " + msg);
        assertEquals(InlineVerbs.callCqByte(InlineVerbs.cqFn(cqx, IbvCqEx.READ_SL_OFFSET), cqx), c.sl(), "sl " + msg);
        assertEquals(InlineVerbs.callCqByte(InlineVerbs.cqFn(cqx, IbvCqEx.READ_DLID_PATH_BITS_OFFSET), cqx),
            c.dlidPathBits(), "dlid_path_bits " + msg);
        assertEquals(InlineVerbs.callCqShort(InlineVerbs.cqFn(cqx, IbvCqEx.READ_CVLAN_OFFSET), cqx), c.cvlan(),
            "cvlan " + msg);
        if (c.vlanStripped())
        {
            assertEquals(VLAN_TCI, c.cvlan(), msg);
        }
        final long ts = InlineVerbs.callCqLong(InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_TS_OFFSET), cqx);
        assertEquals(ts, c.timestamp(), "completion_ts " + msg);
        final long wall = InlineVerbs.callCqLong(InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_WALLCLOCK_NS_OFFSET),
            cqx);
        // libmlx5 converts with the clock-info snapshot it took at start_poll; a republished page rounds by 1 ns
        final long mine = clock.toNanos(c.timestamp());
        assertTrue(Math.abs(mine - wall) <= 1, "wallclock ns: libmlx5 " + wall + ", NicClock " + mine + " " + msg);
    }

    private static int readInt(final MemorySegment cqx, final long member)
    {
        return InlineVerbs.callCqInt(InlineVerbs.cqFn(cqx, member), cqx);
    }


    private MemorySegment recvWr(final long wrId, final long addr, final int lkey)
    {
        final MemorySegment sge = arena.allocate(IbvSge.LAYOUT);
        sge.set(ValueLayout.JAVA_LONG, IbvSge.ADDR_OFFSET, addr);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LENGTH_OFFSET, RECV_BYTES);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LKEY_OFFSET, lkey);
        final MemorySegment wr = arena.allocate(IbvRecvWr.LAYOUT);
        wr.set(ValueLayout.JAVA_LONG, IbvRecvWr.WR_ID_OFFSET, wrId);
        wr.set(CTypes.C_POINTER, IbvRecvWr.NEXT_OFFSET, MemorySegment.NULL);
        wr.set(CTypes.C_POINTER, IbvRecvWr.SG_LIST_OFFSET, sge);
        wr.set(ValueLayout.JAVA_INT, IbvRecvWr.NUM_SGE_OFFSET, 1);
        return wr;
    }

    /** The frame without its 802.1Q tag, as a stripping NIC stores it. */
    private static byte[] untag(final byte[] f)
    {
        final byte[] out = new byte[f.length - 4];
        System.arraycopy(f, 0, out, 0, 12);
        System.arraycopy(f, 16, out, 12, f.length - 16);
        return out;
    }
}
