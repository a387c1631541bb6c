// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvRecvWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.verbs.SrqRing;
import io.mlx5j.verbs.XrcDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Golden parity of the receive side (engine off): the same receive work requests posted through libmlx5
 * ({@code ibv_post_recv} / {@code ibv_post_srq_recv}, through their function pointers) and through mlx5j
 * ({@link io.mlx5j.direct.RecvQueue} / {@link SrqRecvQueue}) on twin queues leave identical receive rings and
 * identical doorbell records, with no exception: receive WQEs carry no QPN and libmlx5 writes every byte mlx5j
 * writes. Both rings are poisoned identically before each post (for the SRQ only the scatter part of each WQE: the
 * next segments are the free list libmlx5 reads). After each batch, CQEs written into both CQs complete the WQEs
 * (RQ: in order; SRQ: in a random order, so the free lists are rebuilt differently each round and then reused), and
 * libmlx5's and mlx5j's ibv_wc fields must agree.
 */
@Tag("parity")
class RecvParityTest
{
    private static final int[] LENGTHS = {100, 0, 4096, 7, 1, 65, 3};

    private Rig rig;
    private final Random random = new Random(5);
    private long nextWrId = 1;

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

    private static void poison(final MemorySegment s, final long from, final long to, final int salt)
    {
        for (long i = from; i < to; i++)
        {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (0x80 | ((i * 37 + salt) & 0x7f)));
        }
    }

    private static MemorySegment recvWrs(final Arena a, final long[] wrIds, final long[][] addr, final int[][] len,
        final int lkey)
    {
        MemorySegment next = MemorySegment.NULL;
        for (int w = wrIds.length - 1; w >= 0; w--)
        {
            final MemorySegment sges = a.allocate(IbvSge.LAYOUT, Math.max(1, len[w].length));
            for (int i = 0; i < len[w].length; i++)
            {
                final long at = i * IbvSge.LAYOUT.byteSize();
                sges.set(U64, at + IbvSge.ADDR_OFFSET, addr[w][i]);
                sges.set(U32, at + IbvSge.LENGTH_OFFSET, len[w][i]);
                sges.set(U32, at + IbvSge.LKEY_OFFSET, lkey);
            }
            final MemorySegment wr = a.allocate(IbvRecvWr.LAYOUT);
            wr.set(U64, IbvRecvWr.WR_ID_OFFSET, wrIds[w]);
            wr.set(C_POINTER, IbvRecvWr.NEXT_OFFSET, next);
            wr.set(C_POINTER, IbvRecvWr.SG_LIST_OFFSET, sges);
            wr.set(C_INT, IbvRecvWr.NUM_SGE_OFFSET, len[w].length);
            next = wr;
        }
        return next;
    }

    /**
     * Publishes the {@code batch} WQEs mlx5j posted, compares both receive rings and doorbell records byte for byte,
     * then retires the batch through injected CQEs (both stacks poll them).
     */
    private static void ringCompareRetire(final Twin t, final int batch, final String what)
    {
        assertEquals(batch, t.rqJ.ring());
        assertArrayEquals(t.ringsL.rq().toArray(ValueLayout.JAVA_BYTE),
            t.ringsJ.rq().toArray(ValueLayout.JAVA_BYTE), "receive ring after " + what);
        assertArrayEquals(t.ringsL.dbrec().toArray(ValueLayout.JAVA_BYTE),
            t.ringsJ.dbrec().toArray(ValueLayout.JAVA_BYTE), "doorbell record after " + what);
        for (int w = 0; w < batch; w++)
        {
            // wqe_counter as the device writes it, the running count of consumed receive WQEs: libmlx5 44 took
            // a receive's wr_id from the ring's tail, libmlx5 65 takes it from this counter (mlx5j: the tail)
            t.retireRecv(t.recvRetired++ & 0xffff, 100 + w);
        }
    }

    private int[] lengths(final int n, final int k)
    {
        final int[] l = new int[n];
        for (int i = 0; i < n; i++)
        {
            l[i] = LENGTHS[(i + k) % LENGTHS.length];
        }
        return l;
    }

    private static long[] addresses(final long base, final int[] len, final int k)
    {
        final long[] a = new long[len.length];
        for (int i = 0; i < len.length; i++)
        {
            a[i] = base + 128 + k * 97L + i * 5000L;
        }
        return a;
    }

    @Test
    void receiveQueueWqesAndDoorbellRecord()
    {
        final Twin t = new Twin(rig, QpType.RC, false, 16, 4, 64);
        final int wqeCnt = t.ringsJ.rqWqeCnt();
        final int maxSge = t.ringsJ.rqStride() / 16;
        assertTrue(wqeCnt >= 8 && maxSge >= 4, "rq " + wqeCnt + " x " + t.ringsJ.rqStride());
        int k = 0;
        int compared = 0;
        for (int round = 0; round < 4 * wqeCnt / 3; round++)
        {
            final int batch = 1 + round % 3;
            final long[] ids = new long[batch];
            final long[][] addr = new long[batch][];
            final int[][] len = new int[batch][];
            for (int w = 0; w < batch; w++)
            {
                ids[w] = nextWrId++;
                len[w] = lengths(k % (maxSge + 1), k);
                addr[w] = addresses(t.mr.address(), len[w], k);
                k++;
            }
            poison(t.ringsL.rq(), 0, t.ringsL.rq().byteSize(), 3);
            poison(t.ringsJ.rq(), 0, t.ringsJ.rq().byteSize(), 3);
            try (Arena a = Arena.ofConfined())
            {
                assertEquals(0, InlineVerbs.ibv_post_recv(t.qpL.pointer(), recvWrs(a, ids, addr, len, t.mr.lkey()),
                    a.allocate(C_POINTER)));
            }
            for (int w = 0; w < batch; w++)
            {
                t.rqJ.begin(ids[w]);
                for (int i = 0; i < len[w].length; i++)
                {
                    t.rqJ.sge(addr[w][i], t.mr.lkey(), len[w][i]);
                }
                assertTrue(t.rqJ.post());
            }
            ringCompareRetire(t, batch, "receive batch " + round + " of " + batch);
            compared += batch;
        }
        assertTrue(compared > wqeCnt, "every slot used: " + compared);
    }

    /**
     * The one-buffer post ({@code post(wrId, addr, lkey, len)}), which writes its data segment and terminator
     * without staging, against ibv_post_recv of the same one-SGE WR, with a terminator (4 SGEs per WQE) and without
     * one (1 SGE: a 16-byte stride), zero-length buffers included (libmlx5 drops them, leaving only the terminator).
     * The ring fills up on the way: the post that finds no room returns false and writes nothing.
     */
    @Test
    void oneBufferPostsWriteWhatLibmlx5Writes()
    {
        for (final int maxSge : new int[] {1, 4})
        {
            final Twin t = new Twin(rig, QpType.RC, false, 16, maxSge, 0);
            final int wqeCnt = t.ringsJ.rqWqeCnt();
            assertEquals(maxSge * 16, t.ringsJ.rqStride(), "receive stride for " + maxSge + " SGEs");
            int k = 0;
            for (int round = 0; round < 3; round++)
            {
                poison(t.ringsL.rq(), 0, t.ringsL.rq().byteSize(), 9 + round);
                poison(t.ringsJ.rq(), 0, t.ringsJ.rq().byteSize(), 9 + round);
                final int batch = round == 1 ? wqeCnt : 1 + round * 5;
                for (int w = 0; w < batch; w++)
                {
                    final long id = nextWrId++;
                    final int[] len = {LENGTHS[k % LENGTHS.length]};
                    final long[] addr = addresses(t.mr.address(), len, k);
                    k++;
                    try (Arena a = Arena.ofConfined())
                    {
                        assertEquals(0, InlineVerbs.ibv_post_recv(t.qpL.pointer(),
                            recvWrs(a, new long[] {id}, new long[][] {addr}, new int[][] {len}, t.mr.lkey()),
                            a.allocate(C_POINTER)));
                    }
                    assertTrue(t.rqJ.post(id, addr[0], t.mr.lkey(), len[0]), "post " + w + " of round " + round);
                }
                if (round == 1)
                {
                    final byte[] full = t.ringsJ.rq().toArray(ValueLayout.JAVA_BYTE);
                    assertTrue(!t.rqJ.post(nextWrId, t.mr.address(), t.mr.lkey(), 64), "a full ring refuses");
                    assertArrayEquals(full, t.ringsJ.rq().toArray(ValueLayout.JAVA_BYTE), "a refused post writes");
                    t.rqJ.begin(nextWrId);  // drop the WR the refused post left staged
                }
                ringCompareRetire(t, batch, maxSge + "-SGE receive WQEs, round " + round);
            }
        }
    }

    /**
     * Twin SRQs (16 WRs, 3 SGEs), each with an RC QP on its own CQ: one posted through ibv_post_srq_recv, one through
     * {@link SrqRecvQueue}; every post and completion is made on both and then both rings and doorbell records are
     * compared. The free list is libmlx5's (44: linked at the completion; 48 and later: at the next post that finds
     * it empty, in ring order), so this compares the scheme of whichever libmlx5 the JVM runs.
     */
    /** Twin SRQs, each behind an RC QP (the CQE names the QP; libmlx5 finds the SRQ through the QP's index). */
    private SrqTwin rcTwin()
    {
        final SharedReceiveQueue srqL = rig.pd.createSrq(16, 3);
        final SharedReceiveQueue srqJ = rig.pd.createSrq(16, 3);
        final CompletionQueue cqL = rig.cq(256);
        final CompletionQueue cqJ = rig.cq(256);
        final QueuePair qpL = rig.pd.createQp(QpConfig.builder(QpType.RC, cqL).maxRecvWr(0).srq(srqL).build());
        final QueuePair qpJ = rig.pd.createQp(QpConfig.builder(QpType.RC, cqJ).maxRecvWr(0).srq(srqJ).build());
        final SrqRecvQueue dsrq = SrqRecvQueue.of(srqJ);
        return new SrqTwin(srqL, srqJ, cqL, cqJ, qpL.qpn(), EmulatedDevice.uidx(qpL.qpn()), qpJ.qpn(),
            EmulatedDevice.uidx(qpJ.qpn()), dsrq, CqPoller.of(cqJ).attach(dsrq, qpJ));
    }

    /**
     * Twin XRC SRQs of one XRC domain, each with a TGT QP: the CQE names the TGT QP and carries the SRQ's index in
     * srqn_uidx, by which both libmlx5 and the poller find the SRQ.
     */
    private SrqTwin xrcTwin()
    {
        final XrcDomain xrcd = rig.context.openXrcDomain();
        final CompletionQueue cqL = rig.cq(256);
        final CompletionQueue cqJ = rig.cq(256);
        final SharedReceiveQueue srqL = rig.pd.createXrcSrq(xrcd, cqL, 16, 3);
        final SharedReceiveQueue srqJ = rig.pd.createXrcSrq(xrcd, cqJ, 16, 3);
        final QueuePair tgtL = xrcd.createTgtQp();
        final QueuePair tgtJ = xrcd.createTgtQp();
        final SrqRecvQueue dsrq = SrqRecvQueue.of(srqJ);
        return new SrqTwin(srqL, srqJ, cqL, cqJ, tgtL.qpn(), srqL.cqeIndex(), tgtJ.qpn(), srqJ.cqeIndex(), dsrq,
            CqPoller.of(cqJ).attach(dsrq));
    }

    private final class SrqTwin
    {
        final SharedReceiveQueue srqL;
        final SharedReceiveQueue srqJ;
        final CompletionQueue cqL;
        final CompletionQueue cqJ;
        final int qpnL;
        final int qpnJ;
        final int uidxL;
        final int uidxJ;
        final SrqRing ringL;
        final SrqRing ringJ;
        final SrqRecvQueue dsrq;
        final CqPoller dcqJ;
        final CqeInjector injL;
        final CqeInjector injJ;
        final MemoryRegion mr = rig.memory(1 << 16);
        final int mrLkey = mr.lkey();
        final int stride;
        final int maxSge;
        final int wqes;
        final MemorySegment wc = rig.memory.allocate(IbvWc.LAYOUT);
        final Completion c = new Completion();
        int k;

        SrqTwin(final SharedReceiveQueue srqL, final SharedReceiveQueue srqJ, final CompletionQueue cqL,
            final CompletionQueue cqJ, final int qpnL, final int uidxL, final int qpnJ, final int uidxJ,
            final SrqRecvQueue dsrq, final CqPoller dcqJ)
        {
            this.srqL = srqL;
            this.srqJ = srqJ;
            this.cqL = cqL;
            this.cqJ = cqJ;
            this.qpnL = qpnL;
            this.qpnJ = qpnJ;
            this.uidxL = uidxL;
            this.uidxJ = uidxJ;
            this.dsrq = dsrq;
            this.dcqJ = dcqJ;
            ringL = srqL.ring();
            ringJ = srqJ.ring();
            injL = new CqeInjector(cqL);
            injJ = new CqeInjector(cqJ);
            assertEquals(ringL.stride(), ringJ.stride());
            assertEquals(ringL.tail(), ringJ.tail());
            stride = ringJ.stride();
            maxSge = (stride - 16) / 16;
            wqes = ringJ.tail() + 1;
        }

        /** One WR on both SRQs, rings and doorbell records compared; returns the WQE it used. */
        int post(final String what)
        {
            for (int q = 0; q < wqes; q++)
            {
                poison(ringL.buf(), (long) q * stride + 16, (long) (q + 1) * stride, 9);
                poison(ringJ.buf(), (long) q * stride + 16, (long) (q + 1) * stride, 9);
            }
            final long id = nextWrId++;
            final int[] len = lengths(k % (maxSge + 1), k);
            final long[] addr = addresses(mr.address(), len, k);
            k++;
            try (Arena a = Arena.ofConfined())
            {
                assertEquals(0, InlineVerbs.ibv_post_srq_recv(srqL.pointer(),
                    recvWrs(a, new long[] {id}, new long[][] {addr}, new int[][] {len}, mrLkey),
                    a.allocate(C_POINTER)), "ibv_post_srq_recv, " + what);
            }
            dsrq.begin(id);
            for (int i = 0; i < len.length; i++)
            {
                dsrq.sge(addr[i], mrLkey, len[i]);
            }
            assertTrue(dsrq.post(), "SrqRecvQueue.post, " + what);
            assertEquals(1, dsrq.ring());
            compare("SRQ buffer after WR " + id + ", " + what);
            // the WQE just posted is the only one whose scatter part is no longer poison
            int slot = -1;
            for (int q = 0; q < wqes; q++)
            {
                final byte[] now = ringJ.buf().asSlice((long) q * stride + 16, stride - 16)
                    .toArray(ValueLayout.JAVA_BYTE);
                poison(ringJ.buf(), (long) q * stride + 16, (long) (q + 1) * stride, 9);
                final boolean written = !java.util.Arrays.equals(now,
                    ringJ.buf().asSlice((long) q * stride + 16, stride - 16).toArray(ValueLayout.JAVA_BYTE));
                MemorySegment.copy(MemorySegment.ofArray(now), 0, ringJ.buf(), (long) q * stride + 16, stride - 16);
                if (written)
                {
                    assertEquals(-1, slot, "two WQEs written by one post");
                    slot = q;
                }
            }
            assertTrue(slot >= 0, "no WQE written");
            return slot;
        }

        /** A post both stacks must refuse (no free WQE): ENOMEM from libmlx5, false from mlx5j, nothing written. */
        void refused(final String what)
        {
            final byte[] before = ringJ.buf().toArray(ValueLayout.JAVA_BYTE);
            try (Arena a = Arena.ofConfined())
            {
                assertEquals(12, InlineVerbs.ibv_post_srq_recv(srqL.pointer(), recvWrs(a, new long[] {1},
                    new long[][] {{mr.address()}}, new int[][] {{8}}, mrLkey), a.allocate(C_POINTER)),
                    "ibv_post_srq_recv on a full SRQ (ENOMEM), " + what);
            }
            assertTrue(!dsrq.post(1, mr.address(), mrLkey, 8), "the SRQ is full, " + what);
            assertArrayEquals(before, ringJ.buf().toArray(ValueLayout.JAVA_BYTE), "a refused post writes, " + what);
            compare("SRQ buffer after a refused post, " + what);
        }

        /** A CQE naming WQE {@code slot} on both CQs, polled by both stacks; completions and rings compared. */
        void complete(final int slot)
        {
            injL.respSend(qpnL, uidxL, slot, 50 + slot, 0x42);
            injJ.respSend(qpnJ, uidxJ, slot, 50 + slot, 0x42);
            wc.fill((byte) 0);
            assertEquals(1, InlineVerbs.ibv_poll_cq(cqL.pointer(), 1, wc));
            assertEquals(1, dcqJ.poll(c));
            WcFields.assertSame(wc, c, qpnL, qpnJ, "SRQ completion of WQE " + slot);
            compare("SRQ free list after completing WQE " + slot);
        }

        private void compare(final String what)
        {
            assertArrayEquals(ringL.buf().toArray(ValueLayout.JAVA_BYTE), ringJ.buf().toArray(ValueLayout.JAVA_BYTE),
                what);
            assertArrayEquals(ringL.dbrec().asSlice(0, 4).toArray(ValueLayout.JAVA_BYTE),
                ringJ.dbrec().asSlice(0, 4).toArray(ValueLayout.JAVA_BYTE), "SRQ doorbell record, " + what);
        }
    }

    /** Fill, complete everything in a random order, refill: six rounds, so each round reuses the last one's list. */
    @Test
    void sharedReceiveQueueWqesFreeListAndDoorbellRecord()
    {
        fillCompleteRefill(rcTwin());
    }

    /** The same for XRC SRQs, completed through TGT QPs: the completions equal ibv_poll_cq's field by field. */
    @Test
    void xrcSharedReceiveQueueWqesFreeListAndDoorbellRecord()
    {
        fillCompleteRefill(xrcTwin());
    }

    private void fillCompleteRefill(final SrqTwin t)
    {
        for (int round = 0; round < 6; round++)
        {
            // fill the SRQ to the limit (libmlx5 keeps one WQE in the list: head == tail is full)
            final List<Integer> posted = new ArrayList<>();
            for (int w = 0; w < t.wqes - 1; w++)
            {
                posted.add(t.post("round " + round));
            }
            t.refused("round " + round);
            // complete in a random order: the CQE names the WQE by wqe_counter, which the free list must follow
            final List<Integer> busy = new ArrayList<>(posted);
            assertEquals(t.wqes - 1, new java.util.HashSet<>(busy).size());
            Collections.shuffle(busy, random);
            for (final int slot : busy)
            {
                t.complete(slot);
            }
            assertEquals(0, t.dsrq.outstanding());
        }
    }

    /**
     * Completions between posts, a few at a time, with the SRQ run full now and then: libmlx5 48 and later link what
     * completed only when a post finds the list empty, taking the WQE after the tail or else the nearest run of
     * completed WQEs above or below the head, so the freed WQEs must be scattered over the ring for those searches
     * to be compared at all (the test above frees every WQE before the next post, where the WQE after the tail is
     * always free).
     */
    @Test
    void sharedReceiveQueueFreeListWithCompletionsBetweenPosts()
    {
        final SrqTwin t = rcTwin();
        final List<Integer> busy = new ArrayList<>();
        for (int w = 0; w < t.wqes - 1; w++)
        {
            busy.add(t.post("first fill"));
        }
        int refusals = 0;
        for (int step = 0; step < 12 * t.wqes; step++)
        {
            final String what = "step " + step;
            if (busy.size() == t.wqes - 1)
            {
                t.refused(what);
                refusals++;
            }
            // complete 1 to 5 WQEs picked at random among the outstanding ones, then post 1 to 5 (or as many as fit)
            final int completions = Math.min(busy.size(), 1 + random.nextInt(5));
            for (int i = 0; i < completions; i++)
            {
                t.complete(busy.remove(random.nextInt(busy.size())));
            }
            final int posts = Math.min(t.wqes - 1 - busy.size(), 1 + random.nextInt(5));
            for (int i = 0; i < posts; i++)
            {
                final int slot = t.post(what);
                assertTrue(!busy.contains(slot), "WQE " + slot + " posted twice, " + what);
                busy.add(slot);
            }
            assertEquals(busy.size(), t.dsrq.outstanding(), what);
        }
        assertTrue(refusals > 0, "the SRQ never ran full");
    }
}
