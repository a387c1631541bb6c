// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.testkit.ExpectedWqe;
import io.mlx5j.testkit.Libmlx5Oracle;
import io.mlx5j.testkit.QpKind;
import io.mlx5j.testkit.WorkRequest;
import io.mlx5j.testkit.WqeAssertions;
import io.mlx5j.testkit.WqeDump;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.Mlx5Opcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The testkit's libmlx5 oracle for raw Ethernet frames, and for WQEs at a given producer index (wrapping the send
 * ring's end), against mlx5j's own encoder {@link RawSendQueue}: every WQE compared exactly with
 * {@link WqeAssertions} (only the bytes {@link ExpectedWqe} lists as unwritten by libmlx5 are skipped), on both of
 * libmlx5's posting paths, in both minimum-inline modes of the device (MLX5EMU_ETH_MIN_INLINE=none: libmlx5 inlines no
 * header; l2: 18 bytes), which the emulator reads when a context is opened. Runs with the device idle
 * (MLX5EMU_ENGINE=off): mlx5j's WQEs are retired by CQEs written into its CQ, the oracle's fillers by the oracle.
 */
@Tag("parity")
class RawOracleTest
{
    private static final int MAX_SEND_WR = 16;
    private static final int MAX_SGE = 4;
    private static final int MAX_INLINE = 256;
    /** Frames live here in the oracle's region; mlx5j reads the same bytes (and names the oracle's lkey). */
    private static final int FRAME_AT = 4096;

    private Rig rig;
    private Libmlx5Oracle oracle;
    private Side j;
    private int compared;

    @AfterEach
    void close()
    {
        if (oracle != null)
        {
            oracle.close();
        }
        if (rig != null)
        {
            rig.close();
        }
        System.out.printf("RawOracleTest: %d WQEs compared with the oracle%n", compared);
    }

    /** mlx5j's raw QP of the oracle's geometry, and what retires its WQEs. */
    private final class Side
    {
        final CompletionQueue cq = rig.cq(512);
        final QueuePair qp;
        final QpRing ring;
        final RawSendQueue sq;
        final CqPoller poller;
        final CqeInjector injector = new CqeInjector(cq);
        final int uidx;
        final Completion c = new Completion();

        Side()
        {
            qp = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(MAX_SEND_WR).maxRecvWr(4)
                .maxSendSge(MAX_SGE).maxRecvSge(1).maxInlineData(MAX_INLINE).build());
            qp.activate(1);
            ring = qp.rings();
            sq = RawSendQueue.of(qp, DoorbellMode.AUTO);
            poller = CqPoller.of(cq).attach(sq.queue());
            uidx = EmulatedDevice.uidx(qp.qpn());
        }

        /** Posts {@code wr}'s pieces through RawSendQueue's staging form and rings; returns the WQE's first WQEBB. */
        int post(final WorkRequest wr, final long[] addr, final int[] len, final int flags)
        {
            final int pi = sq.producerCounter();
            final RawSendQueue q = sq.begin(0x1000 + pi, flags);
            for (int i = 0; i < addr.length; i++)
            {
                q.sge(addr[i], oracle.lkey(), len[i]);
            }
            assertTrue(q.post(), "mlx5j posts " + wr);
            return pi;
        }

        /** Rings what was posted, retires the last WQE (first WQEBB {@code counter}) by a CQE, polls it. */
        void ringAndRetire(final int counter)
        {
            assertTrue(sq.ring() > 0);
            injector.req(qp.qpn(), uidx, Mlx5Opcode.MLX5_OPCODE_SEND, counter, 0);
            assertEquals(1, poller.poll(c));
            assertEquals(0, sq.outstanding());
        }

        /** Single-WQEBB 60-byte frames until the producer counter is {@code pi} (not behind it already). */
        void advanceTo(final int pi)
        {
            assertTrue(sq.producerCounter() <= pi, "producer counter " + sq.producerCounter() + " is past " + pi);
            while (sq.producerCounter() != pi)
            {
                final int at = sq.producerCounter();
                assertTrue(sq.begin(1, SendFlags.SIGNALED).sge(oracle.memory().address(), oracle.lkey(), 60).post());
                assertEquals(at + 1, sq.producerCounter(), "a filler takes one WQEBB");
                ringAndRetire(at);
            }
        }

        /** mlx5j's WQE at producer counter {@code pi}, read across the ring's end. */
        byte[] wqe(final int pi)
        {
            return WqeDump.linearize(ring.sq(), ring.sqWqeCnt(), pi & (ring.sqWqeCnt() - 1));
        }
    }

    /** Opens both sides with MLX5EMU_ETH_MIN_INLINE = mode; a UDP/IPv4 frame of 1514 bytes at FRAME_AT. */
    private void open(final String mode, final Libmlx5Oracle.Api api)
    {
        EmulatedDevice.setenv("MLX5EMU_ETH_MIN_INLINE", mode);
        rig = new Rig();
        Assumptions.assumeTrue(rig.roce, "raw packet QPs need an Ethernet port");
        oracle = Libmlx5Oracle.open(QpKind.RAW_PACKET, api, MAX_SEND_WR, MAX_SGE, MAX_INLINE);
        j = new Side();
        assertEquals(mode.equals("l2") ? 18 : 0, j.sq.minInline());
        final MemorySegment f = oracle.memory().asSlice(FRAME_AT, 1514);
        for (int i = 0; i < f.byteSize(); i++)
        {
            f.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 7 + 3));
        }
        // 02:00:00:00:00:01 <- 02:00:00:00:00:02, IPv4 (0x0800), version 4 IHL 5, protocol UDP (17)
        f.copyFrom(MemorySegment.ofArray(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0, 0x45, 0}));
        f.set(ValueLayout.JAVA_BYTE, 14 + 9, (byte)17);
    }

    private long at(final int offset)
    {
        return oracle.memory().address() + FRAME_AT + offset;
    }

    /** A raw frame send of {@code pieces} consecutive pieces of the frame at FRAME_AT, with IBV_SEND_* flags. */
    private WorkRequest frame(final int flags, final int... pieces)
    {
        final WorkRequest wr = WorkRequest.send().flags(flags).wrId(0x77);
        int off = 0;
        for (final int len : pieces)
        {
            wr.sge(at(off), len, oracle.lkey());
            off += len;
        }
        return wr;
    }

    /** Posts the frame on mlx5j at its current position and compares with {@code e} moved there. */
    private void compare(final ExpectedWqe oracleWqe, final int flags, final int... pieces)
    {
        final long[] addr = new long[pieces.length];
        int off = 0;
        for (int i = 0; i < pieces.length; i++)
        {
            addr[i] = at(off);
            off += pieces[i];
        }
        final int pi = j.post(null, addr, pieces, flags);
        final ExpectedWqe e = oracleWqe.withQpn(j.qp.qpn()).withWqeIndex(pi & 0xffff);
        WqeAssertions.assertWqe(e, j.wqe(pi));
        j.ringAndRetire(pi);
        compared++;
    }

    private static final int[][] SHAPES = {{42, 58}, {100}, {6, 7, 87}, {42, 200}, {0, 60}, {60, 1}, {1514}};

    @ParameterizedTest(name = "min inline {0}, {1}")
    @CsvSource({"none, POST_SEND", "none, WR", "l2, POST_SEND", "l2, WR"})
    @Timeout(120)
    void rawFramesMatchRawSendQueue(final String mode, final Libmlx5Oracle.Api api)
    {
        open(mode, api);
        final int[] flagSets = {0, SendFlags.SIGNALED | SendFlags.IP_CSUM, SendFlags.SOLICITED | SendFlags.FENCE,
            SendFlags.INLINE | SendFlags.IP_CSUM, SendFlags.INLINE | SendFlags.SIGNALED | SendFlags.SOLICITED};
        int k = 0;
        for (final int[] shape : SHAPES)
        {
            for (final int flags : flagSets)
            {
                final int total = java.util.Arrays.stream(shape).sum();
                if ((flags & SendFlags.INLINE) != 0 && total - j.sq.minInline() > MAX_INLINE)
                {
                    continue;
                }
                // SendFlags carry the verbs values (HeaderConstantsTest): the same bits are IBV_SEND_*
                final ExpectedWqe e = oracle.expect(frame(flags, shape));
                compare(e, flags, shape);
                k++;
            }
        }
        assertEquals(33, k, "7 shapes by 5 flag sets, less the 1514-byte frame inline twice");
    }

    /** The decoded fields of what the oracle returns for a raw frame: offload flags, inline headers, SGE. */
    @ParameterizedTest(name = "min inline {0}, {1}")
    @CsvSource({"none, POST_SEND", "none, WR", "l2, POST_SEND", "l2, WR"})
    @Timeout(60)
    void rawFrameFieldsByName(final String mode, final Libmlx5Oracle.Api api)
    {
        open(mode, api);
        final ExpectedWqe e = oracle.expect(frame(WorkRequest.IBV_SEND_IP_CSUM | WorkRequest.IBV_SEND_SIGNALED,
            42, 58));
        final WqeDump d = e.dump();
        assertEquals("SEND", d.field("ctrl.opcode"), d.text());
        assertEquals("L3_CSUM|L4_CSUM", d.field("eth.cs_flags"), d.text());
        assertEquals("CQ_UPDATE", d.field("ctrl.fm_ce_se"), d.text());
        if (mode.equals("l2"))
        {
            assertEquals("18", d.field("eth.inline_hdr_sz"), d.text());
            assertEquals("5", d.field("ctrl.ds"), d.text());   // ctrl, 32 bytes of Ethernet segment, 2 gathers
            assertEquals("02:00:00:00:00:01", d.field("eth.l2.dst"), d.text());
            assertEquals("24", d.field("data[0].byte_count"), d.text());
            assertEquals(String.format("0x%016x", at(18)), d.field("data[0].addr"), d.text());
        }
        else
        {
            assertEquals("0", d.field("eth.inline_hdr_sz"), d.text());
            assertEquals("4", d.field("ctrl.ds"), d.text());   // ctrl, 16 bytes of Ethernet segment, 2 gathers
            assertEquals("42", d.field("data[0].byte_count"), d.text());
            assertEquals(String.format("0x%016x", at(0)), d.field("data[0].addr"), d.text());
        }
        assertEquals("58", d.field("data[1].byte_count"), d.text());
        assertEquals(String.format("0x%08x", oracle.lkey()), d.field("data[1].lkey"), d.text());
        compare(e, SendFlags.IP_CSUM | SendFlags.SIGNALED, 42, 58);
    }

    /**
     * WQEs that start in the last WQEBBs of the ring and continue at its start, and WQEs on later passes of the ring
     * (wqe_index past wqe_cnt), each against RawSendQueue at the same producer index; and a batch of three under
     * one doorbell across the end.
     */
    @ParameterizedTest(name = "min inline {0}, {1}")
    @CsvSource({"none, POST_SEND", "none, WR", "l2, POST_SEND", "l2, WR"})
    @Timeout(300)
    void wqesThatWrapTheRingEnd(final String mode, final Libmlx5Oracle.Api api)
    {
        open(mode, api);
        final int cnt = j.ring.sqWqeCnt();
        assertEquals(cnt, oracle.sendRingWqebbs(), "the oracle's ring has mlx5j's geometry");
        int wrapping = 0;
        final int flags = SendFlags.INLINE | SendFlags.SIGNALED | SendFlags.IP_CSUM;
        for (final int pi : new int[] {cnt - 3, 2 * cnt - 2, 3 * cnt - 1, 4 * cnt - 1, 5 * cnt - 2})
        {
            final ExpectedWqe e = oracle.expect(pi, frame(flags, 42, 180)).get(0);
            assertEquals(pi & 0xffff, e.wqeIndex());
            assertEquals(String.valueOf(pi), e.dump().field("ctrl.wqe_index"));
            if ((pi & (cnt - 1)) * 64 + e.bytes().length > cnt * 64)
            {
                wrapping++;
            }
            j.advanceTo(pi);
            final int p = j.post(null, new long[] {at(0), at(42)}, new int[] {42, 180}, flags);
            assertEquals(pi, p);
            WqeAssertions.assertWqe(e.withQpn(j.qp.qpn()), j.wqe(p));   // wqe_index as libmlx5 wrote it
            j.ringAndRetire(p);
            compared++;
        }
        assertEquals(5, wrapping, "every WQE of 4 WQEBBs from 3 before the end wraps");

        // three frames under one doorbell from 2 WQEBBs before the end (the oracle: one ibv_post_send of a chain, or
        // one ibv_wr_start .. ibv_wr_complete)
        final int start = 6 * cnt - 2;
        final List<ExpectedWqe> batch = oracle.expect(start, frame(flags, 42, 180), frame(SendFlags.SIGNALED, 100),
            frame(SendFlags.INLINE, 60, 1));
        assertEquals(3, batch.size());
        j.advanceTo(start);
        final List<Integer> pis = new ArrayList<>();
        pis.add(j.post(null, new long[] {at(0), at(42)}, new int[] {42, 180}, flags));
        pis.add(j.post(null, new long[] {at(0)}, new int[] {100}, SendFlags.SIGNALED));
        pis.add(j.post(null, new long[] {at(0), at(60)}, new int[] {60, 1}, SendFlags.INLINE));
        for (int i = 0; i < 3; i++)
        {
            assertEquals(pis.get(i) & 0xffff, batch.get(i).wqeIndex(), "WQE " + i + " of the batch");
            WqeAssertions.assertWqe(batch.get(i).withQpn(j.qp.qpn()), j.wqe(pis.get(i)));
            compared++;
        }
        j.ringAndRetire(pis.get(2));
    }

    /** The oracle's producer index is checked, and a batch needs a work request. */
    @Test
    @Timeout(60)
    void producerIndexOutOfRangeIsRefusedByName()
    {
        open("none", Libmlx5Oracle.Api.POST_SEND);
        final IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> oracle.expect(0x10000, frame(0, 60)));
        assertEquals("producer index 65536 is not in 0..65535 (wqe_index is 16 bits)", e.getMessage());
    }
}
