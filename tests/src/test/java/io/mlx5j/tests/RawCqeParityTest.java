// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.IbvCqEx;
import io.mlx5j.bindings.IbvCqInitAttrEx;
import io.mlx5j.bindings.IbvPollCqAttr;
import io.mlx5j.bindings.IbvRecvWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvClockInfo;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.raw.NicClock;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.testkit.HostCommand;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Raw receive CQEs decoded by mlx5j equal what libmlx5 reports for them. Twin RAW_PACKET QPs; the libmlx5 twin's CQ
 * is an ibv_cq_ex with completion timestamps, cvlan and flow tag. The device is idle (MLX5EMU_ENGINE=off): this test
 * writes the same raw CQE into both CQs (random checksum bits, L3/L4 header types, VLAN, flow tag, RSS hash,
 * timestamp, byte count), then libmlx5 reads it, every other CQE with the legacy ibv_poll_cq (every ibv_wc field),
 * the others with ibv_start_poll and ibv_wc_read_opcode / _byte_len / _wc_flags (IBV_WC_IP_CSUM_OK) / _qp_num /
 * _flow_tag / _cvlan / _completion_ts / _completion_wallclock_ns, and CqPoller must report the same. (CQEs the
 * engine itself writes, for raw QPs, plain WQs and striding WQs: {@link EngineRawCqeParityTest}.) The timestamp
 * conversion is judged twice: {@link NicClock#toNanos(long, long, long, int, int, long, long)} against the header's
 * mlx5dv_ts_to_ns compiled in C for thousands of random clock infos and timestamps (newer and older than last_cycles,
 * masks of every width), and NicClock reading the live clock-info page against mlx5dv_get_clock_info +
 * mlx5dv_ts_to_ns.
 */
@Tag("parity")
class RawCqeParityTest
{
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long WC_FLAGS = IbvCqInitAttrEx.IBV_WC_STANDARD_FLAGS |
        IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | IbvCqInitAttrEx.IBV_WC_EX_WITH_CVLAN |
        IbvCqInitAttrEx.IBV_WC_EX_WITH_FLOW_TAG | IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;

    private Rig rig;

    @BeforeEach
    void open()
    {
        rig = new Rig();
    }

    @AfterEach
    void close()
    {
        rig.close();
    }

    @Test
    void rawReceiveCqesDecodeAsLibmlx5ReadsThem()
    {
        Assumptions.assumeTrue(rig.roce, "raw packet QPs need an Ethernet port");
        final CompletionQueue cqL = rig.context.createCqEx(64, WC_FLAGS);
        final CompletionQueue cqJ = rig.cq(64);
        final QueuePair qpL = rig.pd.createQp(config(cqL));
        final QueuePair qpJ = rig.pd.createQp(config(cqJ));
        qpL.activate(1);
        qpJ.activate(1);
        final MemoryRegion mr = rig.memory(1 << 16);
        final RecvQueue rqJ = RecvQueue.of(qpJ);
        final CqPoller dcq = CqPoller.of(cqJ).attach(rqJ);
        final int uidxL = EmulatedDevice.uidx(qpL.qpn());
        final int uidxJ = EmulatedDevice.uidx(qpJ.qpn());
        final Completion c = new Completion();
        final Random rnd = new Random(11);
        int csumOk = 0;
        int vlans = 0;
        int legacyCsumOk = 0;
        try (Arena a = Arena.ofConfined(); NicClock clock = NicClock.of(rig.context))
        {
            final MemorySegment pollAttr = a.allocate(IbvPollCqAttr.LAYOUT);
            final MemorySegment wc = a.allocate(io.mlx5j.bindings.IbvWc.LAYOUT);
            final MemorySegment cqx = cqL.pointer();
            final CqWriter wl = new CqWriter(cqL);
            final CqWriter wj = new CqWriter(cqJ);
            for (int i = 0; i < 600; i++)
            {
                final long buf = mr.address() + (i % 16) * 2048L;
                postRecvL(qpL, a, i, buf, mr.lkey());
                assertTrue(rqJ.post(i, buf, mr.lkey(), 2048));
                rqJ.ring();
                final MemorySegment cqe = MemorySegment.ofArray(new long[8]);
                cqe.set(ValueLayout.JAVA_BYTE, 0x1c, (byte) rnd.nextInt(8));                    // hds_ip_ext
                final int l3 = rnd.nextInt(3);
                final int l4 = rnd.nextInt(5);
                final boolean strip = rnd.nextInt(4) == 0;
                cqe.set(ValueLayout.JAVA_BYTE, 0x1d, (byte) (l4 << 4 | l3 << 2 | (strip ? 1 : 0))); // l4_hdr_type_etc
                cqe.set(BE16, 0x1e, (short) (strip ? rnd.nextInt(65536) : 0));                  // vlan_info
                cqe.set(BE32, 0x0c, rnd.nextInt());                                               // rss hash
                cqe.set(ValueLayout.JAVA_BYTE, 0x10, (byte) rnd.nextInt(256));                   // rss hash type
                cqe.set(BE32, 0x18, rnd.nextInt());                      // flags_rqpn: GRH bits, sl, src_qp
                cqe.set(ValueLayout.JAVA_BYTE, 0x11, (byte) rnd.nextInt(256));                   // ml_path
                cqe.set(BE16, 0x14, (short) rnd.nextInt(65536));                                  // check_sum
                cqe.set(BE16, 0x16, (short) rnd.nextInt(65536));                                  // slid
                cqe.set(BE32, 0x24, rnd.nextInt());                                               // imm_inval_pkey
                cqe.set(BE32, 0x2c, 60 + rnd.nextInt(1455));                                      // byte_cnt
                cqe.set(BE64, 0x30, rnd.nextLong() >>> 1);                                        // timestamp
                final int tag = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(1 << 24);
                wl.respSend(cqe, tag, uidxL, i % 16);
                wj.respSend(cqe, tag, uidxJ, i % 16);

                if (i % 2 == 1)
                {
                    // the legacy path: libmlx5's ibv_poll_cq fills every ibv_wc field from the same CQE
                    wc.fill((byte) 0);
                    assertEquals(1, InlineVerbs.ibv_poll_cq(cqx, 1, wc), "libmlx5 ibv_poll_cq sees CQE " + i);
                    assertEquals(1, dcq.poll(c), "mlx5j sees CQE " + i);
                    WcFields.assertSame(wc, c, tag, tag, "CQE " + i + " through ibv_poll_cq");
                    assertMlx5jOnly(c, cqe, buf, "CQE " + i);
                    legacyCsumOk += (c.wcFlags() & 4) != 0 ? 1 : 0;
                    continue;
                }
                assertEquals(0, InlineVerbs.ibv_start_poll(cqx, pollAttr), "libmlx5 sees CQE " + i);
                final long wrId = cqx.reinterpret(IbvCqEx.LAYOUT.byteSize()).get(ValueLayout.JAVA_LONG,
                    IbvCqEx.WR_ID_OFFSET);
                final int status = cqx.reinterpret(IbvCqEx.LAYOUT.byteSize()).get(ValueLayout.JAVA_INT,
                    IbvCqEx.STATUS_OFFSET);
                final int opcode = readInt(cqx, IbvCqEx.READ_OPCODE_OFFSET);
                final int byteLen = readInt(cqx, IbvCqEx.READ_BYTE_LEN_OFFSET);
                final int wcFlags = readInt(cqx, IbvCqEx.READ_WC_FLAGS_OFFSET);
                final int qpNum = readInt(cqx, IbvCqEx.READ_QP_NUM_OFFSET);
                final int flowTag = readInt(cqx, IbvCqEx.READ_FLOW_TAG_OFFSET);
                final int srcQp = readInt(cqx, IbvCqEx.READ_SRC_QP_OFFSET);
                final int cvlan = InlineVerbs.callCqShort(InlineVerbs.cqFn(cqx, IbvCqEx.READ_CVLAN_OFFSET), cqx);
                final long ts = InlineVerbs.callCqLong(InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_TS_OFFSET), cqx);
                final long wall = InlineVerbs.callCqLong(
                    InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_WALLCLOCK_NS_OFFSET), cqx);
                InlineVerbs.ibv_end_poll(cqx);

                assertEquals(1, dcq.poll(c), "mlx5j sees CQE " + i);
                final String what = "CQE " + i + " (" + c + ")";
                assertEquals(wrId, c.wrId(), "wr_id " + what);
                assertEquals(status, c.statusCode(), "status " + what);
                assertEquals(opcode, c.opcode(), "opcode " + what);
                assertEquals(byteLen, c.byteLen(), "byte_len " + what);
                assertEquals(wcFlags, c.wcFlags(), "wc_flags " + what);
                assertEquals(qpNum, c.qpn(), "qp_num (the flow tag for raw receives) " + what);
                assertEquals(flowTag, c.flowTag(), "flow_tag " + what);
                assertEquals(srcQp, c.srcQp(), "src_qp " + what);
                assertEquals(cvlan, c.cvlan(), "cvlan " + what);
                assertEquals(ts, c.timestamp(), "completion_ts " + what);
                // libmlx5 converts with the clock info it read at start_poll; the page rarely changes in between
                final long mine = clock.toNanos(c.timestamp());
                assertTrue(Math.abs(mine - wall) <= 1, "wallclock ns: libmlx5 " + wall + ", mlx5j " + mine);
                assertMlx5jOnly(c, cqe, buf, what);
                csumOk += (wcFlags & 4) != 0 ? 1 : 0;
                vlans += cvlan != 0 ? 1 : 0;
            }
        }
        assertTrue(csumOk > 10 && csumOk < 290, "IBV_WC_IP_CSUM_OK both ways: " + csumOk + " of 300");
        assertTrue(legacyCsumOk > 10 && legacyCsumOk < 290, "IBV_WC_IP_CSUM_OK through ibv_poll_cq: " + legacyCsumOk);
        assertTrue(vlans > 20, "stripped VLANs: " + vlans);
    }

    /**
     * The fields libmlx5 has no reader for on these paths, against the CQE bytes (the PRM's mlx5_cqe64 offsets) and
     * the receive buffer the frame landed in (the WQE's first data segment).
     */
    private static void assertMlx5jOnly(final Completion c, final MemorySegment cqe, final long buf, final String what)
    {
        assertEquals(buf, c.frameAddress(), "frame address " + what);
        assertEquals(cqe.get(BE32, 0x0c), c.rssHash(), "rss hash " + what);
        assertEquals(cqe.get(ValueLayout.JAVA_BYTE, 0x10) & 0xff, c.rssHashType(), "rss hash type " + what);
        assertEquals(cqe.get(ValueLayout.JAVA_BYTE, 0x1c) & 0xff, c.hdsIpExt(), "hds_ip_ext " + what);
        final int l4HdrTypeEtc = cqe.get(ValueLayout.JAVA_BYTE, 0x1d) & 0xff;
        assertEquals((l4HdrTypeEtc >>> 4) & 7, c.l4Type(), "L4 type " + what);
        assertEquals((l4HdrTypeEtc >>> 2) & 3, c.l3Type(), "L3 type " + what);
        assertEquals((l4HdrTypeEtc & 1) != 0, c.vlanStripped(), "VLAN stripped " + what);
    }

    private static QpConfig config(final CompletionQueue cq)
    {
        return QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(4).maxRecvWr(16).maxSendSge(1).maxRecvSge(1)
            .maxInlineData(0).build();
    }

    private static int readInt(final MemorySegment cqx, final long member)
    {
        return InlineVerbs.callCqInt(InlineVerbs.cqFn(cqx, member), cqx);
    }

    private static void postRecvL(final QueuePair qp, final Arena a, final long wrId, final long addr, final int lkey)
    {
        final MemorySegment sge = a.allocate(IbvSge.LAYOUT);
        sge.set(ValueLayout.JAVA_LONG, IbvSge.ADDR_OFFSET, addr);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LENGTH_OFFSET, 2048);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LKEY_OFFSET, lkey);
        final MemorySegment wr = a.allocate(IbvRecvWr.LAYOUT);
        wr.set(ValueLayout.JAVA_LONG, IbvRecvWr.WR_ID_OFFSET, wrId);
        wr.set(CTypes.C_POINTER, IbvRecvWr.NEXT_OFFSET, MemorySegment.NULL);
        wr.set(CTypes.C_POINTER, IbvRecvWr.SG_LIST_OFFSET, sge);
        wr.set(ValueLayout.JAVA_INT, IbvRecvWr.NUM_SGE_OFFSET, 1);
        assertEquals(0, InlineVerbs.ibv_post_recv(qp.pointer(), wr, a.allocate(CTypes.C_POINTER)));
    }

    /** Writes raw RESP_SEND CQEs as the device does: body first, op_own with the pass's owner bit last. */
    private static final class CqWriter
    {
        private final MemorySegment buf;
        private final int cnt;
        private int produced;

        CqWriter(final CompletionQueue cq)
        {
            this.buf = cq.ring().buf();
            this.cnt = cq.ring().cqeCnt();
        }

        void respSend(final MemorySegment body, final int tag, final int uidx, final int wqeCounter)
        {
            final long at = (long) (produced & (cnt - 1)) * 64;
            MemorySegment.copy(body, 0, buf, at, 64);
            buf.set(BE32, at + 0x20, uidx & 0xffffff);           // srqn_uidx: libmlx5 finds the QP by it
            buf.set(BE32, at + 0x38, tag & 0xffffff);            // sop_drop_qpn: the flow tag
            buf.set(BE16, at + 0x3c, (short) wqeCounter);
            java.lang.invoke.VarHandle.releaseFence();
            buf.set(ValueLayout.JAVA_BYTE, at + 0x3f, (byte) (2 << 4 | ((produced / cnt) & 1)));
            produced++;
        }
    }

    @Test
    void tsToNsArithmeticIsTheHeaders() throws Exception
    {
        final Random rnd = new Random(5);
        final StringBuilder in = new StringBuilder();
        final List<Long> mine = new ArrayList<>();
        for (int i = 0; i < 20000; i++)
        {
            final int bits = 32 + rnd.nextInt(33);
            final long mask = bits == 64 ? -1L : (1L << bits) - 1;
            final long nsec = rnd.nextLong() >>> 1;
            final long last = rnd.nextLong() & mask;
            final int shift = rnd.nextInt(32);
            final long frac = rnd.nextLong() & ((1L << Math.max(shift, 1)) - 1);
            final int mult = rnd.nextInt();
            final long ts = switch (rnd.nextInt(3))
            {
                case 0 -> (last + rnd.nextInt(1 << 20)) & mask;      // newer
                case 1 -> (last - rnd.nextInt(1 << 20)) & mask;      // older
                default -> rnd.nextLong();                            // anything, incl. bits above the mask
            };
            in.append(Long.toUnsignedString(nsec)).append(' ').append(Long.toUnsignedString(last)).append(' ')
                .append(Long.toUnsignedString(frac)).append(' ').append(Integer.toUnsignedString(mult)).append(' ')
                .append(shift).append(' ').append(Long.toUnsignedString(mask)).append(' ')
                .append(Long.toUnsignedString(ts)).append('\n');
            mine.add(NicClock.toNanos(nsec, last, frac, mult, shift, mask, ts));
        }
        final List<String> c = judge(in.toString());
        assertEquals(mine.size(), c.size());
        for (int i = 0; i < c.size(); i++)
        {
            assertEquals(c.get(i), Long.toUnsignedString(mine.get(i)), "case " + i);
        }
    }

    @Test
    void liveClockPageAgreesWithMlx5dvGetClockInfo() throws Exception
    {
        try (Arena a = Arena.ofConfined(); NicClock clock = NicClock.of(rig.context))
        {
            final MemorySegment ci = a.allocate(Mlx5dvClockInfo.LAYOUT);
            final StringBuilder in = new StringBuilder();
            final List<Long> mine = new ArrayList<>();
            for (int i = 0; i < 50; i++)
            {
                assertEquals(0, Mlx5dv.mlx5dv_get_clock_info(rig.context.pointer(), ci));
                final long last = ci.get(ValueLayout.JAVA_LONG, Mlx5dvClockInfo.LAST_CYCLES_OFFSET);
                final long ts = last + (i - 25) * 1_000_000L;
                mine.add(clock.toNanos(ts));
                in.append(Long.toUnsignedString(ci.get(ValueLayout.JAVA_LONG, Mlx5dvClockInfo.NSEC_OFFSET))).append(' ')
                    .append(Long.toUnsignedString(last)).append(' ')
                    .append(Long.toUnsignedString(ci.get(ValueLayout.JAVA_LONG, Mlx5dvClockInfo.FRAC_OFFSET)))
                    .append(' ').append(Integer.toUnsignedString(ci.get(ValueLayout.JAVA_INT,
                        Mlx5dvClockInfo.MULT_OFFSET))).append(' ')
                    .append(ci.get(ValueLayout.JAVA_INT, Mlx5dvClockInfo.SHIFT_OFFSET)).append(' ')
                    .append(Long.toUnsignedString(ci.get(ValueLayout.JAVA_LONG, Mlx5dvClockInfo.MASK_OFFSET)))
                    .append(' ').append(Long.toUnsignedString(ts)).append('\n');
            }
            final List<String> c = judge(in.toString());
            int equal = 0;
            for (int i = 0; i < c.size(); i++)
            {
                final long d = Long.parseUnsignedLong(c.get(i)) - mine.get(i);
                assertTrue(Math.abs(d) <= 1, "NicClock " + mine.get(i) + " vs mlx5dv_ts_to_ns " + c.get(i));
                equal += d == 0 ? 1 : 0;
            }
            // the page may be republished between the two reads (a different snapshot rounds differently by 1 ns)
            assertTrue(equal >= 45, equal + " of 50 exactly equal");
        }
    }

    /** Compiles src/test/c/ts_to_ns.c against the installed headers and runs it on {@code input}. */
    private static List<String> judge(final String input)
    {
        final Path exe = HostCommand.gcc("ts_to_ns", "-std=c11", "-O1");
        return List.of(HostCommand.run(List.of(exe.toString()), input).split("\n"));
    }
}
