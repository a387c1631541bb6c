// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.testkit.ExpectedWqe;
import io.mlx5j.testkit.Libmlx5Oracle;
import io.mlx5j.testkit.QpKind;
import io.mlx5j.testkit.WorkRequest;
import io.mlx5j.testkit.WqeAssertions;
import io.mlx5j.testkit.WqeDump;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.wqe.Mlx5Opcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Golden parity of the send path: the same work request posted on twin QPs ({@link Twin}), once through libmlx5
 * (ibv_post_send via its function pointer, or the ibv_wr_* builders of ibv_qp_ex) and once through mlx5j's
 * SendQueue, must leave the same bytes in
 * <ul>
 * <li>the send ring (the whole ring is compared, so a stray write anywhere is caught),</li>
 * <li>the doorbell record (both 32-bit words),</li>
 * <li>the BlueFlame register: both halves of each twin's own register, i.e. the BlueFlame copy of the WQE or the
 *     8-byte doorbell (first 8 bytes of the ctrl segment), in the half the post used.</li>
 * </ul>
 * Before every post both rings and both registers are filled with the same non-zero poison pattern, so bytes a side
 * does not write are visible. Differences are accepted only where this test states why, byte by byte:
 * <ol>
 * <li>qpn in qpn_ds (ctrl bytes 4..6, also inside the BlueFlame copy / doorbell): each twin writes its own QP
 *     number; libmlx5's bytes must be twin L's QPN and mlx5j's twin J's;</li>
 * <li>bytes libmlx5 leaves unwritten ({@link SendWr#staleOffsets}): there libmlx5's byte must still be the poison
 *     and mlx5j's must be 0.</li>
 * </ol>
 * The matrix: every opcode of RC, UC, UD and XRC_SEND (the XRC INI QP: RC's opcodes behind the XRC segment, the remote
 * SRQ number set per WR on libmlx5's side, with {@code ibv_wr_set_xrc_srqn} or {@code wr.qp_type.xrc.remote_srqn}, and
 * once per queue with {@code SendQueue.xrcSrqn} on mlx5j's); 0..max SGEs (with zero-length SGEs, which both drop);
 * inline payloads from 0 to the QP's max inline size in 1..3 pieces; all 8 combinations of SIGNALED/FENCE/SOLICITED;
 * both libmlx5 posting APIs; and, for the largest WQE shapes, every start position of the ring (so every way a WQE can
 * wrap).
 * Runs once per link (surefire executions parity-ib and parity-roce: the UD address vector differs). After each
 * WQE, a CQE written into each twin's CQ retires it: libmlx5 (ibv_poll_cq) and mlx5j (CqPoller) decode it and every
 * ibv_wc field must agree.
 * <p>
 * Not compared here: NOP and the masked atomics, which libmlx5 v44 cannot post (no verb); their encoding is checked
 * against mlx5dv.h-based C in wqe-builder's GoldenBytesTest, NOP below against hand-built bytes.
 */
@Tag("parity")
class SendParityTest
{
    private static final int MAX_SEND_WR = 16;
    private static final int MAX_SGE = 4;
    private static final int MAX_INLINE = 128;
    private static final int[] SGE_LENGTHS = {100, 0, 4096, 7, 1, 65, 3, 2};

    private Rig rig;
    // the testkit's libmlx5 oracle, one per QP type and posting API of this test: a second judge of every single WR
    private final java.util.Map<String, Libmlx5Oracle> oracles = new java.util.HashMap<>();
    private int oracleChecks;
    private long nextWrId = 1;
    // what the comparisons covered (printed, and checked so that a matrix that silently shrank fails)
    private int cases;
    private int blueFlameCopies;
    private int wrapped;
    private int oneCalls;
    private int oneCallsWrapped;
    private int qpnBytes;
    private int staleBytes;

    @BeforeEach
    void open()
    {
        rig = new Rig();
    }

    @AfterEach
    void close()
    {
        oracles.values().forEach(Libmlx5Oracle::close);
        oracles.clear();
        rig.close();
        System.out.printf("SendParityTest: %d WRs compared, %d BlueFlame copies, %d wrapping WQEs, justified bytes:"
            + " %d qpn, %d left unwritten by libmlx5; %d WRs posted by mlx5j's one-call form (%d wrapping)%n", cases,
            blueFlameCopies, wrapped, qpnBytes, staleBytes, oneCalls, oneCallsWrapped);
    }

    static Stream<Arguments> twins()
    {
        final List<Arguments> list = new ArrayList<>();
        for (final QpType type : new QpType[] {QpType.RC, QpType.UC, QpType.UD, QpType.XRC_SEND})
        {
            list.add(Arguments.of(type, "ibv_post_send"));
            list.add(Arguments.of(type, "ibv_wr_*"));
        }
        return list.stream();
    }

    private static int[] opcodes(final QpType type)
    {
        return switch (type)
        {
            case RC, XRC_SEND -> new int[] {IbvSendWr.IBV_WR_SEND, IbvSendWr.IBV_WR_SEND_WITH_IMM,
                IbvSendWr.IBV_WR_SEND_WITH_INV, IbvSendWr.IBV_WR_RDMA_WRITE, IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM,
                IbvSendWr.IBV_WR_RDMA_READ, IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP, IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD};
            case UC -> new int[] {IbvSendWr.IBV_WR_SEND, IbvSendWr.IBV_WR_SEND_WITH_IMM, IbvSendWr.IBV_WR_SEND_WITH_INV,
                IbvSendWr.IBV_WR_RDMA_WRITE, IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM};
            default -> new int[] {IbvSendWr.IBV_WR_SEND, IbvSendWr.IBV_WR_SEND_WITH_IMM};
        };
    }

    private static boolean canInline(final int op)
    {
        return op == IbvSendWr.IBV_WR_SEND || op == IbvSendWr.IBV_WR_SEND_WITH_IMM ||
            op == IbvSendWr.IBV_WR_SEND_WITH_INV || op == IbvSendWr.IBV_WR_RDMA_WRITE ||
            op == IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM;
    }

    /** SIGNALED / FENCE / SOLICITED combination number k (0..7). */
    private static int flagCombo(final int k)
    {
        return ((k & 1) != 0 ? SendFlags.SIGNALED : 0) | ((k & 2) != 0 ? SendFlags.FENCE : 0) |
            ((k & 4) != 0 ? SendFlags.SOLICITED : 0);
    }

    private SendWr wr(final Twin t, final int op, final int flags, final int[] lengths)
    {
        final long base = t.mr.address();
        final long[] addr = new long[lengths.length];
        long at = 0;
        for (int i = 0; i < lengths.length; i++)
        {
            addr[i] = base + 64 + at * 3 + i * 11;  // distinct, unaligned, inside the MR
            at += lengths[i];
        }
        final long id = nextWrId++;
        return new SendWr(op, flags, addr, lengths, t.mr.lkey(), 0x7f0012345678L + id * 8, 0x5eed0000 | (int) id,
            0xabc00000 | (int) id, 0x1111222233334444L + id, 0x5555666677778888L - id, 0x1000000000L + id);
    }

    private static int[] split(final int total, final int pieces)
    {
        final int[] out = new int[pieces];
        for (int i = 0; i < pieces; i++)
        {
            out[i] = total / pieces + (i < total % pieces ? 1 : 0);
        }
        return out;
    }

    @ParameterizedTest(name = "{0} via {1}")
    @MethodSource("twins")
    void everyOpcodeFlagSgeAndInlineShape(final QpType type, final String api)
    {
        final Twin t = new Twin(rig, type, api.startsWith("ibv_wr"), MAX_SEND_WR, MAX_SGE, MAX_INLINE);
        Rig.fill(t.mr.memory(), 0, 1 << 16, 9);
        final int maxSge = t.qpJ.capabilities().maxSendSge();
        final int maxInline = t.qpJ.capabilities().maxInlineData();
        assertEquals(MAX_SGE, maxSge);
        assertTrue(maxInline >= MAX_INLINE, "granted inline " + maxInline);
        int k = 0;
        for (final int op : opcodes(type))
        {
            if (op == IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP || op == IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD)
            {
                for (int f = 0; f < 8; f++)
                {
                    check(t, wr(t, op, flagCombo(f), new int[] {8}));
                }
                continue;
            }
            for (int n = 0; n <= maxSge; n++)
            {
                final int[] lengths = new int[n];
                for (int i = 0; i < n; i++)
                {
                    lengths[i] = SGE_LENGTHS[(i + k) % SGE_LENGTHS.length];
                }
                check(t, wr(t, op, flagCombo(k++ & 7), lengths));
            }
            if (canInline(op))
            {
                for (final int total : new int[] {0, 1, 11, 12, 13, 27, 28, 29, 44, 60, 61, 100, maxInline - 1,
                    maxInline})
                {
                    for (int pieces = 1; pieces <= Math.min(3, maxSge); pieces++)
                    {
                        check(t, wr(t, op, flagCombo(k++ & 7) | SendFlags.INLINE, split(total, pieces)));
                    }
                }
            }
        }
        assertTrue(cases >= (type == QpType.UD ? 90 : 200), "matrix shrank: " + cases);
        assertTrue(staleBytes > 0 && qpnBytes > 0 && blueFlameCopies > 0, "justifications never exercised");
        // the testkit's oracle has no XRC QP kind: XRC_SEND is judged by its libmlx5 twin alone
        assertTrue(type == QpType.XRC_SEND || oracleChecks >= cases / 2,
            "testkit oracle compared " + oracleChecks + " of " + cases + " WRs");
        assertTrue(type == QpType.UD || oneCalls >= 30, "one-call form compared " + oneCalls + " times");
    }

    @ParameterizedTest(name = "{0} via {1}")
    @MethodSource("twins")
    void everyWrapPositionOfTheRing(final QpType type, final String api)
    {
        final Twin t = new Twin(rig, type, api.startsWith("ibv_wr"), MAX_SEND_WR, MAX_SGE, MAX_INLINE);
        Rig.fill(t.mr.memory(), 0, 1 << 16, 10);
        final int wqeCnt = t.ringsJ.sqWqeCnt();
        final int maxInline = t.qpJ.capabilities().maxInlineData();
        final int write = type == QpType.UD ? IbvSendWr.IBV_WR_SEND_WITH_IMM : IbvSendWr.IBV_WR_RDMA_WRITE_WITH_IMM;
        final List<int[]> shapes = List.of(new int[] {1, maxInline}, new int[] {0, 100, 7, 4096, 3},
            new int[] {1, 20, 20, 21});
        for (final int[] shape : shapes)
        {
            for (int start = 0; start < wqeCnt; start++)
            {
                advanceTo(t, start);
                final int[] lengths = java.util.Arrays.copyOfRange(shape, 1, shape.length);
                check(t, wr(t, write, flagCombo(start & 7) | (shape[0] == 1 ? SendFlags.INLINE : 0), lengths));
            }
        }
        assertEquals(3 * wqeCnt, cases);
        assertTrue(wrapped >= 3, "no WQE wrapped the ring end: " + wrapped);
        assertTrue(type == QpType.UD || oneCallsWrapped > 0, "no one-call WQE wrapped the ring end");
    }

    @ParameterizedTest(name = "{0} via {1}")
    @MethodSource("twins")
    void batchesRingOnceForTheLastWqe(final QpType type, final String api)
    {
        final Twin t = new Twin(rig, type, api.startsWith("ibv_wr"), MAX_SEND_WR, MAX_SGE, MAX_INLINE);
        Rig.fill(t.mr.memory(), 0, 1 << 16, 11);
        final int[] ops = opcodes(type);
        for (int n = 2; n <= 6; n++)
        {
            for (int round = 0; round < 10; round++)
            {
                if (round % 2 == 1)
                {
                    // every other batch starts in the last WQEBBs of the ring, so the batch wraps
                    advanceTo(t, t.ringsJ.sqWqeCnt() - 1 - round % 4);
                }
                final List<SendWr> batch = new ArrayList<>();
                for (int i = 0; i < n; i++)
                {
                    final int op = ops[(round + i) % ops.length];
                    final boolean atomic = op == IbvSendWr.IBV_WR_ATOMIC_CMP_AND_SWP ||
                        op == IbvSendWr.IBV_WR_ATOMIC_FETCH_AND_ADD;
                    final boolean inline = !atomic && canInline(op) && (round + i) % 3 == 0;
                    final int[] lengths = atomic ? new int[] {8} : inline ? new int[] {17 * (i + 1)} :
                        java.util.Arrays.copyOf(SGE_LENGTHS, (round + i) % (MAX_SGE + 1));
                    batch.add(wr(t, op, flagCombo(round + i) | (inline ? SendFlags.INLINE : 0), lengths));
                }
                check(t, batch);
            }
        }
        assertTrue(cases >= 200, "batch WRs compared: " + cases);
        assertTrue(wrapped > 0, "no batch wrapped the ring");
    }

    /**
     * The remote SRQ number of an XRC_SEND queue: required before the first post (by both forms; nothing written),
     * 24 bits, and only for XRC_SEND QPs.
     */
    @org.junit.jupiter.api.Test
    void xrcSrqnIsRequiredAndChecked()
    {
        final io.mlx5j.verbs.QueuePair xrc = rig.pd.createQp(io.mlx5j.verbs.QpConfig.builder(QpType.XRC_SEND,
            rig.cq(64)).maxSendWr(16).maxRecvWr(0).maxSendSge(2).maxRecvSge(0).maxInlineData(64).build());
        final io.mlx5j.direct.SendQueue sq = io.mlx5j.direct.SendQueue.of(xrc, io.mlx5j.doorbell.DoorbellMode.AUTO);
        final io.mlx5j.verbs.MemoryRegion mr = rig.memory(4096);
        final int pi = sq.producerCounter();
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
            () -> sq.send(1, mr.address(), mr.lkey(), 16, SendFlags.SIGNALED));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
            () -> sq.begin(2, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, 0).remote(mr.address(), mr.rkey())
                .sge(mr.address(), mr.lkey(), 8).post());
        assertEquals(pi, sq.producerCounter(), "a refused post wrote a WQE");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> sq.xrcSrqn(1 << 24));
        assertTrue(sq.xrcSrqn(0xabcdef).send(3, mr.address(), mr.lkey(), 16, SendFlags.SIGNALED));
        final MemorySegment wqe = xrc.rings().sq().asSlice((pi & (xrc.rings().sqWqeCnt() - 1)) * 64L, 32);
        assertEquals(0x00abcdef, wqe.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 16),
            "xrc_srqn after ctrl");
        final Twin rc = new Twin(rig, QpType.RC, false, MAX_SEND_WR, MAX_SGE, MAX_INLINE);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> rc.sqJ.xrcSrqn(1));
    }

    @org.junit.jupiter.params.provider.EnumSource(value = QpType.class, names = {"RC", "UC", "UD"})
    @ParameterizedTest
    void nopIsTheCtrlSegmentAlone(final QpType type)
    {
        final Twin t = new Twin(rig, type, false, MAX_SEND_WR, MAX_SGE, MAX_INLINE);
        final MemorySegment ring = t.ringsJ.sq();
        for (int i = 0; i < 3; i++)
        {
            final int pi = t.sqJ.producerCounter();
            assertTrue(t.sqJ.nop(77 + i, (i == 1 ? SendFlags.SIGNALED : 0) | SendFlags.FENCE | SendFlags.RING));
            final long ctrl = (pi & (t.ringsJ.sqWqeCnt() - 1)) * 64L;
            // opmod_idx_opcode = wqe_index << 8 | MLX5_OPCODE_NOP; qpn_ds = qpn << 8 | 1; fm_ce_se; imm 0
            final byte[] expect = new byte[16];
            java.nio.ByteBuffer.wrap(expect).putInt(pi << 8).putInt(t.qpJ.qpn() << 8 | 1)
                .putInt((i == 1 ? 0x08 : 0) | 0x80).putInt(0);
            assertArrayEquals(expect, ring.asSlice(ctrl, 16).toArray(ValueLayout.JAVA_BYTE), "NOP " + i);
            assertEquals(pi + 1, Twin.sendDbrec(t.ringsJ));
            // ds 1: AUTO rings the 8-byte doorbell (libmlx5 uses BlueFlame only for size > 1)
            final long half = (i & 1) * (long) t.ringsJ.bfSize();
            assertArrayEquals(java.util.Arrays.copyOf(expect, 8),
                t.ringsJ.bfReg().asSlice(half, 8).toArray(ValueLayout.JAVA_BYTE), "doorbell of NOP " + i);
            t.injJ.req(t.qpJ.qpn(), t.uidxJ, Mlx5Opcode.MLX5_OPCODE_NOP, pi, 0);
            assertEquals(1, t.dcqJ.poll(t.completion));
            assertEquals(77 + i, t.completion.wrId());
            assertEquals(0, t.completion.opcode(), "NOP completes as IBV_WC_SEND, as libmlx5 reports it");
        }
    }

    /** Posts 1-WQEBB fillers on both twins until the producer is at {@code start} (mod ring), retiring them. */
    private void advanceTo(final Twin t, final int start)
    {
        final int wqeCnt = t.ringsJ.sqWqeCnt();
        final int filler = t.type == QpType.UD ? IbvSendWr.IBV_WR_SEND : IbvSendWr.IBV_WR_RDMA_WRITE;
        int pending = 0;
        int last = 0;
        while ((t.sqJ.producerCounter() & (wqeCnt - 1)) != start)
        {
            last = t.sqJ.producerCounter();
            final SendWr w = wr(t, filler, 0, new int[0]);
            post(t, w);
            w.postDirect(t);
            if (++pending == 8)
            {
                t.retireSend(w.mlx5Opcode(), last, 0);
                pending = 0;
            }
        }
        if (pending > 0)
        {
            t.retireSend(t.type == QpType.UD ? Mlx5Opcode.MLX5_OPCODE_SEND : Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE,
                last, 0);
        }
        assertEquals(0, t.sqJ.outstanding());
    }

    /**
     * The same WR through the testkit's {@link Libmlx5Oracle} (libmlx5 on a QP of the twins' geometry) against
     * mlx5j's WQE, field by field ({@link WqeAssertions}: the failure names the field). On RoCE UD the datagram
     * segment's rlid is not compared: libmlx5 puts the RoCE v2 UDP source port of each address handle there, and the
     * oracle has its own handle.
     */
    private void oracleCheck(final Twin t, final SendWr w, final int pi)
    {
        if (t.type == QpType.XRC_SEND)
        {
            return;
        }
        final Libmlx5Oracle oracle = oracles.computeIfAbsent(t.type + (t.wrApi ? "/wr" : "/post_send"),
            k -> Libmlx5Oracle.open(kind(t.type), t.wrApi ? Libmlx5Oracle.Api.WR : Libmlx5Oracle.Api.POST_SEND,
                MAX_SEND_WR, MAX_SGE, MAX_INLINE));
        final WorkRequest k = WorkRequest.of(w.ibvOpcode).flags(w.ibvFlags()).wrId(w.wrId).imm(w.imm)
            .remote(w.raddr, w.rkey).atomic(w.compareAdd, w.swap);
        for (int i = 0; i < w.len.length; i++)
        {
            k.sge(w.addr[i], w.len[i], w.lkey);
        }
        if (t.type == QpType.UD)
        {
            k.ud(t.qpJ.qpn(), Rig.QKEY);
        }
        ExpectedWqe e = oracle.expect(k).withQpn(t.qpJ.qpn()).withWqeIndex(pi & 0xffff);
        if (t.type == QpType.UD && rig.roce)
        {
            final boolean[] mask = e.unwritten();
            mask[16 + 14] = true;   // datagram rlid (struct mlx5_wqe_av bytes 14..15)
            mask[16 + 15] = true;
            e = new ExpectedWqe(e.bytes(), e.kind(), mask);
        }
        WqeAssertions.assertWqe(e, WqeDump.linearize(t.ringsJ.sq(), t.ringsJ.sqWqeCnt(), pi));
        oracleChecks++;
    }

    private static QpKind kind(final QpType type)
    {
        return switch (type)
        {
            case RC -> QpKind.RC;
            case UC -> QpKind.UC;
            case UD -> QpKind.UD;
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static void post(final Twin t, final SendWr w)
    {
        if (t.wrApi)
        {
            w.postWr(t);
        }
        else
        {
            w.postSend(t);
        }
    }

    private static void poison(final MemorySegment s, final int salt)
    {
        for (long i = 0; i < s.byteSize(); i++)
        {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (0x80 | ((i * 37 + salt) & 0x7f)));
        }
    }

    /** Posts {@code w} on both twins and compares ring, doorbell record and BlueFlame register, then retires it. */
    private void check(final Twin t, final SendWr w)
    {
        check(t, List.of(w));
    }

    /**
     * Posts {@code wrs} on both twins as one batch (one ibv_post_send list / one ibv_wr_start..complete; mlx5j: one
     * post each, one ring) and compares ring, doorbell record and BlueFlame register, then retires them.
     */
    private void check(final Twin t, final List<SendWr> wrs)
    {
        final QpRing l = t.ringsL;
        final QpRing j = t.ringsJ;
        final int wqeCnt = j.sqWqeCnt();
        final int pi = t.sqJ.producerCounter();
        assertEquals(Twin.sendDbrec(l), Twin.sendDbrec(j), "twins out of step before " + wrs);
        final long reg = Math.max(8, 2L * l.bfSize());   // no BlueFlame buffer: only the 8-byte doorbell
        final int window = l.bfSize() == 0 ? 8 : l.bfSize();
        poison(l.sq(), 0);
        poison(j.sq(), 0);
        poison(l.bfReg().asSlice(0, reg), 5);
        poison(j.bfReg().asSlice(0, reg), 5);
        final byte[] poisonRing = l.sq().toArray(ValueLayout.JAVA_BYTE);
        final byte[] poisonReg = l.bfReg().asSlice(0, reg).toArray(ValueLayout.JAVA_BYTE);

        if (wrs.size() == 1)
        {
            post(t, wrs.get(0));
        }
        else if (t.wrApi)
        {
            io.mlx5j.bindings.InlineVerbs.ibv_wr_start(t.qpL.qpEx());
            for (final SendWr w : wrs)
            {
                w.addWr(t);
            }
            assertEquals(0, io.mlx5j.bindings.InlineVerbs.ibv_wr_complete(t.qpL.qpEx()), "ibv_wr_complete " + wrs);
        }
        else
        {
            try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined())
            {
                MemorySegment next = MemorySegment.NULL;
                for (int i = wrs.size() - 1; i >= 0; i--)
                {
                    final MemorySegment wr = wrs.get(i).build(t, a);
                    wr.set(io.mlx5j.bindings.CTypes.C_POINTER, IbvSendWr.NEXT_OFFSET, next);
                    next = wr;
                }
                assertEquals(0, io.mlx5j.bindings.InlineVerbs.ibv_post_send(t.qpL.pointer(), next,
                    a.allocate(io.mlx5j.bindings.CTypes.C_POINTER)), "ibv_post_send list " + wrs);
            }
        }
        for (final SendWr w : wrs)
        {
            w.stageDirect(t);
        }
        assertEquals(wrs.size(), t.sqJ.ring());
        if (wrs.size() == 1)
        {
            oracleCheck(t, wrs.get(0), pi);
        }

        final byte[] ringL = l.sq().toArray(ValueLayout.JAVA_BYTE);
        final byte[] ringJ = j.sq().toArray(ValueLayout.JAVA_BYTE);
        // where each WQE of the batch is, its qpn bytes and the bytes libmlx5 leaves unwritten
        final int[] qpnShift = new int[ringJ.length];
        final boolean[] staleRing = new boolean[ringJ.length];
        java.util.Arrays.fill(qpnShift, -1);
        int pos = pi;
        int lastCtrl = 0;
        int lastBytes = 0;
        boolean[] lastStale = null;
        final StringBuilder what = new StringBuilder(t.type + (t.wrApi ? " ibv_wr_*" : " ibv_post_send"));
        for (final SendWr w : wrs)
        {
            final int ctrl = (pos & (wqeCnt - 1)) * 64;
            assertNotEquals(poisonRing[ctrl + 3], ringJ[ctrl + 3], "mlx5j wrote no WQE for " + w);
            final int ds = ringJ[ctrl + 7] & 0x3f;
            final int wqeBytes = ((ds * 16 + 63) / 64) * 64;
            final boolean[] stale = w.staleOffsets(t.type, t.wrApi, wqeBytes);
            for (int r = 0; r < wqeBytes; r++)
            {
                final int at = (ctrl + r) % ringJ.length;
                staleRing[at] = stale[r];
                qpnShift[at] = r >= 4 && r < 7 ? 8 * (6 - r) : -1;
            }
            what.append(' ').append(w).append(" at WQEBB ").append(pos & (wqeCnt - 1)).append(" ds ").append(ds);
            if (ctrl + wqeBytes > ringJ.length)
            {
                wrapped++;
                oneCallsWrapped += w.oneCallForm(t.type) ? 1 : 0;
            }
            oneCalls += w.oneCallForm(t.type) ? 1 : 0;
            lastCtrl = ctrl;
            lastBytes = wqeBytes;
            lastStale = stale;
            pos += wqeBytes / 64;
        }
        compare("send ring", ringL, ringJ, poisonRing, qpnShift, staleRing, t, what);
        // the register holds the last WQE (BlueFlame copy, single posts only) or its first 8 bytes (doorbell), in
        // one half; a byte libmlx5 left unwritten in the ring shows the ring's poison there
        final byte[] copiedPoison = new byte[(int) reg];
        final int[] regQpn = new int[(int) reg];
        final boolean[] regStale = new boolean[(int) reg];
        for (int i = 0; i < reg; i++)
        {
            final int r = i % window;
            copiedPoison[i] = poisonRing[(lastCtrl + r) % poisonRing.length];
            regQpn[i] = r >= 4 && r < 7 ? 8 * (6 - r) : -1;
            regStale[i] = r < lastBytes && lastStale[r];
        }
        final byte[] regL = l.bfReg().asSlice(0, reg).toArray(ValueLayout.JAVA_BYTE);
        final byte[] regJ = j.bfReg().asSlice(0, reg).toArray(ValueLayout.JAVA_BYTE);
        compare("BlueFlame register", regL, regJ, copiedPoison, regQpn, regStale, t, what);
        int changed = 0;
        for (int i = 0; i < reg; i++)
        {
            changed += regJ[i] != poisonReg[i] ? 1 : 0;
        }
        assertTrue(changed > 0, "mlx5j wrote nothing to its BlueFlame register: " + what);
        blueFlameCopies += changed > 8 ? 1 : 0;
        assertArrayEquals(l.dbrec().toArray(ValueLayout.JAVA_BYTE), j.dbrec().toArray(ValueLayout.JAVA_BYTE),
            "doorbell record after " + what);
        assertEquals(pos & 0xffff, Twin.sendDbrec(j), "send counter after " + what);
        cases += wrs.size();

        final SendWr last = wrs.get(wrs.size() - 1);
        t.retireSend(last.mlx5Opcode(), pos - lastBytes / 64,
            last.ibvOpcode == IbvSendWr.IBV_WR_RDMA_READ ? last.totalLength() : 0);
    }

    private static boolean differs(final byte[] a, final byte[] b)
    {
        return !java.util.Arrays.equals(a, b);
    }

    /**
     * Byte-by-byte comparison with the two written justifications of the class comment.
     *
     * @param qpnShift per byte: -1, or the shift of the qpn byte it holds (qpn_ds bytes 4..6 of a ctrl segment)
     * @param stale    per byte: libmlx5 leaves it unwritten (then it must show {@code poison} there, mlx5j 0)
     */
    private void compare(final String region, final byte[] a, final byte[] b, final byte[] poison,
        final int[] qpnShift, final boolean[] stale, final Twin t, final CharSequence what)
    {
        final int qpnL = t.qpL.qpn();
        final int qpnJ = t.qpJ.qpn();
        for (int i = 0; i < a.length; i++)
        {
            if (a[i] == b[i])
            {
                continue;
            }
            final int shift = qpnShift[i];
            if (shift >= 0 && a[i] == (byte) (qpnL >>> shift) && b[i] == (byte) (qpnJ >>> shift))
            {
                qpnBytes++;
                continue;   // justification 1: each twin's own QPN in qpn_ds
            }
            if (stale[i] && a[i] == poison[i] && b[i] == 0)
            {
                staleBytes++;
                continue;   // justification 2: libmlx5 leaves the byte unwritten, mlx5j writes 0
            }
            fail(String.format("%s byte %d: libmlx5 0x%02x, mlx5j 0x%02x, poison 0x%02x; %s", region, i, a[i] & 0xff,
                b[i] & 0xff, poison[i] & 0xff, what));
        }
    }
}
