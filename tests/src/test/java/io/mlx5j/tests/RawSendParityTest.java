// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
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
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Byte parity of raw Ethernet sends with libmlx5, in both minimum-inline modes of the device
 * (MLX5EMU_ETH_MIN_INLINE=none: libmlx5 inlines 0 bytes; l2: 18), which the emulator reads when a context is opened,
 * so each mode gets its own context; the device stays idle (MLX5EMU_ENGINE=off).
 * <p>
 * Every WQE mlx5j's {@link RawSendQueue} writes is judged by the testkit's {@link Libmlx5Oracle}: the same frames,
 * posted as one list by libmlx5's {@code ibv_post_send} at the same ring position (the oracle's producer index is the
 * WQE's WQEBB in the ring, so a WQE that wraps the ring end in mlx5j's ring wraps in the oracle's too), are compared
 * field by field with {@link WqeAssertions}, whose failure names the field. A libmlx5 twin QP of the same geometry
 * still receives each batch too, for what a WQE does not show: the doorbell record, the BlueFlame register (both
 * halves) and the completion (libmlx5's ibv_poll_cq and mlx5j's CqPoller must report the same one after a CQE is
 * written into each twin's CQ).
 * <p>
 * The matrix: frame sizes from 18 bytes to 1514, in one piece, as header template + payload, with a first piece
 * shorter than the inline header (gathered across pieces) and with an empty first piece; gather entries and inline
 * (up to the QP's max inline data, and one byte over it: refused by both); every combination of SIGNALED, FENCE,
 * SOLICITED and IP_CSUM; VLAN insertion; batches of 2..5 frames under one doorbell; a frame at every start position
 * of the ring.
 * <p>
 * Differences accepted, each with its reason:
 * <ol>
 * <li>the QP number in qpn_ds and the wqe_index (the oracle's QP is its own, at the same ring position; mlx5j's
 *     index is the free-running counter): {@link ExpectedWqe#withQpn}, {@link ExpectedWqe#withWqeIndex};</li>
 * <li>bytes libmlx5 leaves unwritten (the inline padding after the data past the 32 bytes libmlx5 zeroes for the
 *     Ethernet segment): skipped by the oracle's rule, {@link ExpectedWqe};</li>
 * <li>VLAN insertion, which libmlx5 does not offer: libmlx5 posts the tagged frame, mlx5j the untagged one with the
 *     tag to insert. With an 18-byte inline header the Ethernet segments are equal (mlx5j writes the tag into the
 *     inline copy) and only the gather address differs: libmlx5's points 18 bytes into the tagged copy, mlx5j's 14
 *     bytes into the original. With no inline header libmlx5's segment has inline_hdr_sz 0 where mlx5j's has the
 *     insert word (MLX5_ETH_WQE_INSERT_VLAN | TCI). The expected WQE carries mlx5j's value there;</li>
 * <li>in the BlueFlame register, each twin's copy of its own ring: bytes differ only where the rings do.</li>
 * </ol>
 */
@Tag("parity")
class RawSendParityTest
{
    private static final int MAX_SEND_WR = 16;
    private static final int MAX_SGE = 4;
    private static final int MAX_INLINE = 256;
    private static final int[] SIZES = {18, 19, 30, 41, 42, 43, 60, 64, 100, 127, 200, 273, 274, 275, 300, 511, 1000,
        1514};
    private static final int ETH_ALEN2 = 12;

    private Rig rig;
    private Libmlx5Oracle oracle;
    private int cases;
    private int oracleChecks;
    private int unwrittenFields;
    private int vlanBytes;
    private int registerBytes;
    private int blueFlameCopies;
    private int wrapped;
    /** Frames mlx5j posted through the one-call template send rather than the staging form. */
    private int templates;
    /** Oracle checks of filler frames (not counted as cases). */
    private int fillerChecks;

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
        System.out.printf("RawSendParityTest: %d frames compared, %d WQEs judged by the oracle (%d fields left "
            + "unwritten by libmlx5), %d BlueFlame copies, %d wrapping WQEs, justified bytes: %d VLAN, %d register%n",
            cases, oracleChecks, unwrittenFields, blueFlameCopies, wrapped, vlanBytes, registerBytes);
    }

    /** Opens the device with MLX5EMU_ETH_MIN_INLINE = mode (the emulator reads it per context). */
    private Rig open(final String mode)
    {
        EmulatedDevice.setenv("MLX5EMU_ETH_MIN_INLINE", mode);
        rig = new Rig();
        if (rig.roce)
        {
            oracle = Libmlx5Oracle.open(QpKind.RAW_PACKET, Libmlx5Oracle.Api.POST_SEND, MAX_SEND_WR, MAX_SGE,
                MAX_INLINE);
        }
        return rig;
    }

    @Test
    void rawQpOnAnInfinibandPortIsRefusedByName()
    {
        final Rig r = open("none");
        Assumptions.assumeFalse(r.roce, "an Ethernet port takes raw packet QPs");
        final CompletionQueue cq = r.cq(16);
        final VerbsException e = assertThrows(VerbsException.class,
            () -> r.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).build()));
        assertTrue(e.getMessage().contains("EOPNOTSUPP") && e.getMessage().contains("InfiniBand"), e.getMessage());
    }

    /** Twin raw QPs of one context. */
    private final class Twin
    {
        final CompletionQueue cqL = rig.cq(512);
        final CompletionQueue cqJ = rig.cq(512);
        final QueuePair qpL;
        final QueuePair qpJ;
        final QpRing l;
        final QpRing j;
        final RawSendQueue sq;
        final CqPoller dcq;
        final CqeInjector injL = new CqeInjector(cqL);
        final CqeInjector injJ = new CqeInjector(cqJ);
        final int uidxL;
        final int uidxJ;
        final MemoryRegion mr = rig.memory(1 << 16);
        final Arena arena = Arena.ofConfined();
        final MemorySegment wc = arena.allocate(IbvWc.LAYOUT);
        final Completion c = new Completion();

        Twin()
        {
            qpL = rig.pd.createQp(config(cqL));
            qpJ = rig.pd.createQp(config(cqJ));
            qpL.activate(1);
            qpJ.activate(1);
            l = qpL.rings();
            j = qpJ.rings();
            assertEquals(l.sqWqeCnt(), j.sqWqeCnt());
            sq = RawSendQueue.of(qpJ, DoorbellMode.AUTO);
            dcq = CqPoller.of(cqJ).attach(sq.queue());
            uidxL = EmulatedDevice.uidx(qpL.qpn());
            uidxJ = EmulatedDevice.uidx(qpJ.qpn());
            final Random rnd = new Random(7);
            for (long i = 0; i < (1 << 16); i++)
            {
                mr.memory().set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
            }
        }

        private QpConfig config(final CompletionQueue cq)
        {
            return QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(MAX_SEND_WR).maxRecvWr(4).maxSendSge(MAX_SGE)
                .maxRecvSge(1).maxInlineData(MAX_INLINE).build();
        }
    }

    /** One frame to post: its pieces as offsets/lengths in the MR, flags, VLAN. */
    private record Frame(int[] offsets, int[] lengths, int flags, int vlan)
    {
        int total()
        {
            return Arrays.stream(lengths).sum();
        }

        @Override
        public String toString()
        {
            return "frame " + Arrays.toString(lengths) + " flags 0x" + Integer.toHexString(flags) +
                (vlan >= 0 ? " vlan 0x" + Integer.toHexString(vlan) : "");
        }
    }

    private static Frame frame(final int[] lengths, final int flags, final int vlan, final int salt)
    {
        final int[] offsets = new int[lengths.length];
        int at = 4096 + (salt % 512) * 3;
        for (int i = 0; i < lengths.length; i++)
        {
            offsets[i] = at;
            at += lengths[i] + 5;
        }
        return new Frame(offsets, lengths, flags, vlan);
    }

    /** The piece shapes of a frame of {@code size} bytes (each within MAX_SGE pieces). */
    private static List<int[]> shapes(final int size)
    {
        final List<int[]> s = new ArrayList<>();
        s.add(new int[] {size});
        if (size > 42)
        {
            s.add(new int[] {42, size - 42});
        }
        if (size > 13)
        {
            s.add(new int[] {6, 7, size - 13});
        }
        s.add(new int[] {0, size});
        if (size > 1)
        {
            s.add(new int[] {size - 1, 1});
        }
        return s;
    }

    private static int flagCombo(final int k)
    {
        return ((k & 1) != 0 ? SendFlags.SIGNALED : 0) | ((k & 2) != 0 ? SendFlags.FENCE : 0) |
            ((k & 4) != 0 ? SendFlags.SOLICITED : 0) | ((k & 8) != 0 ? SendFlags.IP_CSUM : 0);
    }

    @ParameterizedTest(name = "min inline {0}")
    @ValueSource(strings = {"none", "l2"})
    void everyFrameShapeFlagAndInlineCase(final String mode)
    {
        Assumptions.assumeTrue(open(mode).roce, "raw packet QPs need an Ethernet port");
        final Twin t = new Twin();
        assertEquals(mode.equals("l2") ? 18 : 0, t.sq.minInline(), "libmlx5's eth_min_inline_size, as probed");
        assertTrue(t.sq.checksumOffload(), "the emulated device reports IBV_DEVICE_RAW_IP_CSUM");
        int k = 0;
        for (final int size : SIZES)
        {
            for (final int[] shape : shapes(size))
            {
                check(t, List.of(frame(shape, flagCombo(k), -1, k)));
                k++;
                final int rest = size - t.sq.minInline();
                final Frame inline = frame(shape, flagCombo(k) | SendFlags.INLINE, -1, k);
                k++;
                if (rest <= t.sq.maxInlineData())
                {
                    check(t, List.of(inline));
                }
                else
                {
                    refusedByBoth(t, inline);
                }
            }
        }
        for (int f = 0; f < 16; f++)
        {
            check(t, List.of(frame(new int[] {42, 58}, flagCombo(f), -1, f)));
            check(t, List.of(frame(new int[] {42, 58}, flagCombo(f) | SendFlags.INLINE, -1, f)));
        }
        final int max = t.sq.maxInlineData();
        for (final int rest : new int[] {max, max + 1})
        {
            final Frame edge = frame(new int[] {42, rest + t.sq.minInline() - 42}, SendFlags.INLINE, -1, rest);
            if (rest <= max)
            {
                check(t, List.of(edge));
            }
            else
            {
                refusedByBoth(t, edge);
            }
        }
        assertTrue(cases >= 150, "matrix shrank: " + cases);
        assertTrue(blueFlameCopies > 0, "BlueFlame never exercised");
        assertEquals(cases, oracleChecks - fillerChecks, "every frame judged by the oracle");
        assertTrue(unwrittenFields > 0, "the oracle's unwritten rule was never needed");
        assertTrue(templates >= 40, "template sends: " + templates);
    }

    @ParameterizedTest(name = "min inline {0}")
    @ValueSource(strings = {"none", "l2"})
    void vlanInsertion(final String mode)
    {
        Assumptions.assumeTrue(open(mode).roce, "raw packet QPs need an Ethernet port");
        final Twin t = new Twin();
        int k = 0;
        for (final int size : new int[] {60, 64, 100, 1514})
        {
            for (final int[] shape : List.of(new int[] {size}, new int[] {42, size - 42}))
            {
                for (final int inline : new int[] {0, SendFlags.INLINE})
                {
                    if (inline != 0 && size > t.sq.maxInlineData())
                    {
                        continue;
                    }
                    check(t, List.of(frame(shape, flagCombo(k) | inline, (k * 0x123) & 0xffff, k)));
                    k++;
                }
            }
        }
        assertTrue(vlanBytes > 0, "the VLAN justification was never needed");
    }

    @ParameterizedTest(name = "min inline {0}")
    @ValueSource(strings = {"none", "l2"})
    void batchesAndEveryRingPosition(final String mode)
    {
        Assumptions.assumeTrue(open(mode).roce, "raw packet QPs need an Ethernet port");
        final Twin t = new Twin();
        final int wqeCnt = t.j.sqWqeCnt();
        // a multi-WQEBB frame at every start position: post it, then one single-WQEBB filler (two when the walk
        // would cycle through a subset of the positions), until every position has had the frame
        final boolean[] seen = new boolean[wqeCnt];
        int left = wqeCnt;
        int k = 0;
        while (left > 0)
        {
            final int at = t.sq.producerCounter() & (wqeCnt - 1);
            if (!seen[at])
            {
                seen[at] = true;
                left--;
                check(t, List.of(frame(new int[] {42, 180}, SendFlags.INLINE | flagCombo(k), -1, k)));
                k++;
                fillers(t, 1);
            }
            else
            {
                fillers(t, 1);
            }
        }
        for (int n = 2; n <= 5; n++)
        {
            for (int round = 0; round < 6; round++)
            {
                if (round % 2 == 1)
                {
                    advanceTo(t, wqeCnt - 1 - round % 3);
                }
                final List<Frame> batch = new ArrayList<>();
                for (int i = 0; i < n; i++)
                {
                    final boolean inline = (round + i) % 2 == 0;
                    batch.add(frame(new int[] {42, 20 + 37 * i}, flagCombo(round + i) |
                        (inline ? SendFlags.INLINE : 0), -1, round * 7 + i));
                }
                check(t, batch);
            }
        }
        assertTrue(wrapped > 0, "no WQE wrapped the ring end");
        assertTrue(templates > 0, "no template send");
    }

    /** Single-WQEBB frames on both twins until the producer is at {@code start}, retired as they go. */
    private void advanceTo(final Twin t, final int start)
    {
        final int wqeCnt = t.j.sqWqeCnt();
        while ((t.sq.producerCounter() & (wqeCnt - 1)) != start)
        {
            fillers(t, 1);
        }
    }

    /** {@code n} single-WQEBB frames (compared too, but not counted as cases). */
    private void fillers(final Twin t, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            check(t, List.of(frame(new int[] {60}, 0, -1, 1)));
            cases--;
            fillerChecks++;
        }
    }

    private void refusedByBoth(final Twin t, final Frame f)
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment wr = build(t, f, a);
            final int rc = InlineVerbs.ibv_post_send(t.qpL.pointer(), wr, a.allocate(CTypes.C_POINTER));
            assertEquals(12, rc, "libmlx5 refuses " + f + " with ENOMEM");
        }
        final IllegalArgumentException o = assertThrows(IllegalArgumentException.class,
            () -> oracle.expect(oracleWr(t, f)), "the oracle refuses " + f);
        assertTrue(o.getMessage().contains("ibv_post_send returned 12 (ENOMEM"), o.getMessage());
        assertThrows(IllegalArgumentException.class, () -> stage(t, f), "mlx5j refuses " + f);
    }

    /** Where libmlx5's tagged copy of a VLAN frame's first piece lives in the MR. */
    private static final int TAGGED_AT = 40960;

    /**
     * libmlx5's ibv_send_wr for {@code f}: the same pieces; for a VLAN frame in L2 inline mode the first piece is
     * replaced by a tagged copy (MACs, 0x8100, TCI, the rest of the piece), since libmlx5 cannot insert a tag.
     */
    private static MemorySegment build(final Twin t, final Frame f, final Arena a)
    {
        final MemorySegment wr = a.allocate(IbvSendWr.LAYOUT);
        final MemorySegment sgl = a.allocate(IbvSge.LAYOUT, MAX_SGE);
        final long base = t.mr.address();
        final int n = f.lengths().length;
        for (int i = 0; i < n; i++)
        {
            final long e = i * IbvSge.LAYOUT.byteSize();
            long addr = base + f.offsets()[i];
            int len = f.lengths()[i];
            if (i == 0 && f.vlan() >= 0 && t.sq.minInline() > 0)
            {
                final MemorySegment tagged = t.mr.memory().asSlice(TAGGED_AT, len + 4);
                MemorySegment.copy(t.mr.memory(), f.offsets()[0], tagged, 0, ETH_ALEN2);
                tagged.set(ValueLayout.JAVA_BYTE, 12, (byte) 0x81);
                tagged.set(ValueLayout.JAVA_BYTE, 13, (byte) 0x00);
                tagged.set(ValueLayout.JAVA_BYTE, 14, (byte) (f.vlan() >>> 8));
                tagged.set(ValueLayout.JAVA_BYTE, 15, (byte) f.vlan());
                MemorySegment.copy(t.mr.memory(), f.offsets()[0] + ETH_ALEN2, tagged, 16, len - ETH_ALEN2);
                addr = tagged.address();
                len += 4;
            }
            sgl.set(ValueLayout.JAVA_LONG, e + IbvSge.ADDR_OFFSET, addr);
            sgl.set(ValueLayout.JAVA_INT, e + IbvSge.LENGTH_OFFSET, len);
            sgl.set(ValueLayout.JAVA_INT, e + IbvSge.LKEY_OFFSET, t.mr.lkey());
        }
        wr.set(ValueLayout.JAVA_LONG, IbvSendWr.WR_ID_OFFSET, 0x1000 + f.total());
        wr.set(CTypes.C_POINTER, IbvSendWr.SG_LIST_OFFSET, sgl);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.NUM_SGE_OFFSET, n);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.OPCODE_OFFSET, IbvSendWr.IBV_WR_SEND);
        // SendFlags carry the verbs values: the same bits are IBV_SEND_* (HeaderConstantsTest)
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.SEND_FLAGS_OFFSET, f.flags() & ~SendFlags.RING);
        return wr;
    }

    /** The oracle's work request for {@code f}: the pieces libmlx5's twin gets ({@link #build}, tagged copy too). */
    private static WorkRequest oracleWr(final Twin t, final Frame f)
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment wr = build(t, f, a);
            final MemorySegment sgl = wr.get(CTypes.C_POINTER, IbvSendWr.SG_LIST_OFFSET)
                .reinterpret(MAX_SGE * IbvSge.LAYOUT.byteSize());
            final WorkRequest w = WorkRequest.send().flags(f.flags() & ~SendFlags.RING).wrId(0x1000 + f.total());
            for (int i = 0; i < f.lengths().length; i++)
            {
                final long e = i * IbvSge.LAYOUT.byteSize();
                w.sge(sgl.get(ValueLayout.JAVA_LONG, e + IbvSge.ADDR_OFFSET),
                    sgl.get(ValueLayout.JAVA_INT, e + IbvSge.LENGTH_OFFSET),
                    sgl.get(ValueLayout.JAVA_INT, e + IbvSge.LKEY_OFFSET));
            }
            return w;
        }
    }

    /**
     * mlx5j's side of a frame: a [42-byte header, payload] frame without VLAN goes through the one-call template
     * send (its own fast path), every other frame through the staging form.
     */
    private boolean stage(final Twin t, final Frame f)
    {
        if (f.vlan() < 0 && f.lengths().length == 2 && f.lengths()[0] == UdpHeaderTemplate.LENGTH)
        {
            templates++;
            // the template writes a default header over its bytes: put back the ones libmlx5 was given
            final MemorySegment h = t.mr.memory().asSlice(f.offsets()[0], UdpHeaderTemplate.LENGTH);
            final byte[] bytes = h.toArray(ValueLayout.JAVA_BYTE);
            final UdpHeaderTemplate template = new UdpHeaderTemplate(h);
            MemorySegment.copy(bytes, 0, h, ValueLayout.JAVA_BYTE, 0, bytes.length);
            return t.sq.send(0x1000 + f.total(), template, t.mr.lkey(), t.mr.address() + f.offsets()[1],
                t.mr.lkey(), f.lengths()[1], RawSendQueue.NO_VLAN, f.flags());
        }
        final RawSendQueue q = t.sq.begin(0x1000 + f.total(), f.flags()).vlan(f.vlan() >= 0 ? f.vlan() :
            RawSendQueue.NO_VLAN);
        for (int i = 0; i < f.lengths().length; i++)
        {
            q.sge(t.mr.address() + f.offsets()[i], t.mr.lkey(), f.lengths()[i]);
        }
        return q.post();
    }

    private static void poison(final MemorySegment s, final int salt)
    {
        for (long i = 0; i < s.byteSize(); i++)
        {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (0x80 | ((i * 37 + salt) & 0x7f)));
        }
    }

    /** Posts {@code frames} as one batch on both twins, compares ring, doorbell record and register, retires them. */
    private void check(final Twin t, final List<Frame> frames)
    {
        final QpRing l = t.l;
        final QpRing j = t.j;
        final int pi = t.sq.producerCounter();
        final long reg = Math.max(8, 2L * l.bfSize());
        final int window = l.bfSize() == 0 ? 8 : l.bfSize();
        poison(l.sq(), 0);
        poison(j.sq(), 0);
        poison(l.bfReg().asSlice(0, reg), 5);
        poison(j.bfReg().asSlice(0, reg), 5);
        final int minInline = t.sq.minInline();
        try (Arena a = Arena.ofConfined())
        {
            MemorySegment next = MemorySegment.NULL;
            for (int i = frames.size() - 1; i >= 0; i--)
            {
                final MemorySegment wr = build(t, frames.get(i), a);
                wr.set(CTypes.C_POINTER, IbvSendWr.NEXT_OFFSET, next);
                next = wr;
            }
            assertEquals(0, InlineVerbs.ibv_post_send(t.qpL.pointer(), next, a.allocate(CTypes.C_POINTER)),
                "ibv_post_send " + frames);
        }
        for (final Frame f : frames)
        {
            assertTrue(stage(t, f), "mlx5j posts " + f);
        }
        assertEquals(frames.size(), t.sq.ring());

        final byte[] ringL = l.sq().toArray(ValueLayout.JAVA_BYTE);
        final byte[] ringJ = j.sq().toArray(ValueLayout.JAVA_BYTE);
        final int size = ringJ.length;
        final int wqeCnt = j.sqWqeCnt();
        // the oracle posts the same list at the same ring position of a fresh QP of the geometry
        final WorkRequest[] wrs = new WorkRequest[frames.size()];
        for (int i = 0; i < wrs.length; i++)
        {
            wrs[i] = oracleWr(t, frames.get(i));
        }
        final List<ExpectedWqe> expected = oracle.expect(pi & (wqeCnt - 1), wrs);
        int pos = pi;
        int lastCtrl = 0;
        int lastBytes = 0;
        final StringBuilder what = new StringBuilder("min inline " + minInline);
        for (int i = 0; i < frames.size(); i++)
        {
            final Frame f = frames.get(i);
            final int ctrl = (pos & (wqeCnt - 1)) * 64;
            final int ds = ringJ[ctrl + 7] & 0x3f;
            final int wqeBytes = ((ds * 16 + 63) / 64) * 64;
            what.append(' ').append(f).append(" at WQEBB ").append(pos & (wqeCnt - 1)).append(" ds ").append(ds);
            final ExpectedWqe e = vlan(t, f, expected.get(i).withQpn(t.qpJ.qpn()).withWqeIndex(pos & 0xffff),
                minInline);
            unwrittenFields += e.ignoredFields().size();
            try
            {
                WqeAssertions.assertWqe(e, WqeDump.linearize(j.sq(), wqeCnt, pos & (wqeCnt - 1)));
            }
            catch (final AssertionError x)
            {
                throw new AssertionError(what + ":\n" + x.getMessage(), x);
            }
            oracleChecks++;
            if (ctrl + wqeBytes > size)
            {
                wrapped++;
            }
            lastCtrl = ctrl;
            lastBytes = wqeBytes;
            pos += wqeBytes / 64;
        }
        // the register: the last WQE's BlueFlame copy or its first 8 bytes, at the same offset on both twins; each
        // twin copies its own ring, so a byte may differ only where the rings do (and there the oracle judged it)
        final byte[] regL = l.bfReg().asSlice(0, reg).toArray(ValueLayout.JAVA_BYTE);
        final byte[] regJ = j.bfReg().asSlice(0, reg).toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < reg; i++)
        {
            if (regL[i] == regJ[i])
            {
                continue;
            }
            final int r = i % window;
            final int at = (lastCtrl + r) % size;
            if (r < lastBytes && regL[i] == ringL[at] && regJ[i] == ringJ[at])
            {
                registerBytes++;
                continue;
            }
            fail(String.format("BlueFlame register byte %d: libmlx5 0x%02x, mlx5j 0x%02x (their rings at %d: 0x%02x,"
                + " 0x%02x); %s", i, regL[i] & 0xff, regJ[i] & 0xff, at, ringL[at] & 0xff, ringJ[at] & 0xff, what));
        }
        int changed = 0;
        for (int i = 0; i < reg; i++)
        {
            changed += regJ[i] != (byte) (0x80 | ((i * 37 + 5) & 0x7f)) ? 1 : 0;
        }
        blueFlameCopies += changed > 8 ? 1 : 0;
        assertArrayEquals(l.dbrec().toArray(ValueLayout.JAVA_BYTE), j.dbrec().toArray(ValueLayout.JAVA_BYTE),
            "doorbell record after " + what);
        cases += frames.size();
        // retire the batch: one REQ CQE for the last WQE on each twin, polled by libmlx5 and by CqPoller
        final int lastCounter = pos - lastBytes / 64;
        t.injL.req(t.qpL.qpn(), t.uidxL, Mlx5Opcode.MLX5_OPCODE_SEND, lastCounter, 0);
        t.injJ.req(t.qpJ.qpn(), t.uidxJ, Mlx5Opcode.MLX5_OPCODE_SEND, lastCounter, 0);
        t.wc.fill((byte) 0);
        assertEquals(1, InlineVerbs.ibv_poll_cq(t.cqL.pointer(), 1, t.wc));
        assertEquals(1, t.dcq.poll(t.c));
        WcFields.assertSame(t.wc, t.c, t.qpL.qpn(), t.qpJ.qpn(), "REQ of " + what);
        assertEquals(0, t.sq.outstanding());
    }

    /**
     * The expected WQE of a VLAN frame: libmlx5 was given the tagged frame (it cannot insert a tag), so where mlx5j's
     * encoding of an insertion differs the expected bytes carry mlx5j's value (the class comment's third reason).
     */
    private ExpectedWqe vlan(final Twin t, final Frame f, final ExpectedWqe e, final int minInline)
    {
        if (f.vlan() < 0)
        {
            return e;
        }
        final byte[] b = e.bytes();
        final int ethUnits = (14 + minInline + 15) / 16;
        final int dataAt = 16 + ethUnits * 16;       // WQE offset of the first segment after the Ethernet segment
        if (minInline == 0)
        {
            // libmlx5 (untagged frame): inline_hdr_sz 0; mlx5j: the insert word, Ethernet segment bytes 12..15
            final int[] insert = {0x80, 0x00, (f.vlan() >>> 8) & 0xff, f.vlan() & 0xff};
            for (int r = 0; r < 4; r++)
            {
                vlanBytes += set(b, 28 + r, insert[r]);
            }
        }
        else if ((f.flags() & SendFlags.INLINE) == 0)
        {
            // the first data segment continues the first piece after the inlined bytes: 18 bytes into libmlx5's
            // tagged copy, 14 into mlx5j's original; same length, only the address differs
            final long lAddr = t.mr.address() + TAGGED_AT + minInline;
            final long jAddr = t.mr.address() + f.offsets()[0] + minInline - 4;
            assertEquals(lAddr, be64(b, dataAt + 8), "libmlx5's gather address in its tagged copy");
            for (int r = 0; r < 8; r++)
            {
                vlanBytes += set(b, dataAt + 8 + r, (int) (jAddr >>> (8 * (7 - r))) & 0xff);
            }
        }
        return new ExpectedWqe(b, e.kind(), e.unwritten());
    }

    /** Sets b[at] to v; 1 if that changed it. */
    private static int set(final byte[] b, final int at, final int v)
    {
        final int changed = (b[at] & 0xff) != v ? 1 : 0;
        b[at] = (byte) v;
        return changed;
    }

    private static long be64(final byte[] b, final int at)
    {
        long v = 0;
        for (int i = 0; i < 8; i++)
        {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }
}
