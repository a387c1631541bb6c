// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.Completions;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.direct.UnexpectedCqe;
import io.mlx5j.direct.UnexpectedCqeException;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.direct.internal.QpnTable;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One CQ shared by many QPs, as a storage engine runs it: every completion reaches the queue of the QP number its CQE
 * carries, whatever the number of QPs and however their numbers collide in the poller's table; the flushes of a QP
 * torn down with WQEs outstanding are consumed as orphans without disturbing the others; a CQE no queue ever claimed
 * is counted and does not stop the CQ.
 */
class SharedCqTest
{
    private static final int MLX5_CQE_REQ_ERR = 13;
    private static final int MLX5_CQE_RESP_ERR = 14;
    private static final int SYNDROME_WR_FLUSH_ERR = 5;

    @Test
    @Timeout(120)
    void sixtyFourQpsOnOneCq()
    {
        manyQpsOnOneCq(64);
    }

    @Test
    @Timeout(300)
    void aThousandAndTwentyFourQpsOnOneCq()
    {
        manyQpsOnOneCq(1024);
    }

    /**
     * {@code n} QPs on one CQ (the 64 share slots of the poller's table), each with two NOPs written (never rung: the
     * emulated device does not see them) and completed by CQEs written by hand in a shuffled order that interleaves
     * the QPs; every completion, single and batch polls, names exactly its QP and wr_id. Then every third QP's queue
     * is detached and its second CQE comes: consumed as orphans, the others' completions exact.
     */
    private static void manyQpsOnOneCq(final int n)
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(4 * n);
            final CqPoller dcq = CqPoller.of(cq);
            final QueuePair[] qps = new QueuePair[n];
            final SendQueue[] sqs = new SendQueue[n];
            final Set<Integer> homes = new HashSet<>();
            for (int i = 0; i < n; i++)
            {
                qps[i] = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(4).maxRecvWr(1).build());
                // more QPs than the context has dedicated BlueFlame registers: they share one, locked
                sqs[i] = SendQueue.of(qps[i], DoorbellMode.DOORBELL, true);
                dcq.attach(sqs[i]);
                assertTrue(sqs[i].nop(wrId(i, 0), SendFlags.SIGNALED));
                assertTrue(sqs[i].nop(wrId(i, 1), SendFlags.SIGNALED));
                homes.add(QpnTable.home(qps[i].qpn(), tableCapacity(n)));
            }
            if (n == 64)
            {
                // the emulator's QP numbers for 64 QPs share home slots of the 128-slot table, so the look-ups probe
                // past other QPs' entries; 1,024 of them spread without a collision over 2,048 slots (the
                // multiplicative hash spreads an arithmetic sequence), and QpnTableTest makes keys collide by hand
                assertTrue(homes.size() < n, "the QP numbers must collide in the table for this test to probe: " +
                    homes.size() + " homes for " + n + " QPs");
            }
            final CqeInjector device = new CqeInjector(cq);
            final int[] order = shuffled(n, 7);
            final Completion c = new Completion();
            final Completions batch = new Completions(16);
            // first CQE of each QP, in shuffled order: half polled one by one, half in batches
            for (int k = 0; k < n; k++)
            {
                final int i = order[k];
                device.req(qps[i].qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 0, 0);
            }
            int k = 0;
            while (k < n / 2)
            {
                assertEquals(1, dcq.poll(c));
                assertCompletion(c, qps[order[k]].qpn(), wrId(order[k], 0));
                k++;
            }
            while (k < n)
            {
                final int got = dcq.poll(batch, 16);
                assertEquals(Math.min(16, n - k), got);
                for (int j = 0; j < got; j++)
                {
                    assertCompletion(batch.get(j), qps[order[k]].qpn(), wrId(order[k], 0));
                    k++;
                }
            }
            assertEquals(0, dcq.poll(c));
            // every third queue detached: its second CQE is an orphan, the rest complete exactly
            int detached = 0;
            for (int i = 0; i < n; i += 3)
            {
                assertTrue(dcq.detach(sqs[i]));
                detached++;
            }
            final int[] second = shuffled(n, 11);
            for (final int i : second)
            {
                device.req(qps[i].qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 1, 0);
            }
            for (final int i : second)
            {
                if (i % 3 != 0)
                {
                    assertEquals(1, dcq.poll(c));
                    assertCompletion(c, qps[i].qpn(), wrId(i, 1));
                    assertEquals(0, sqs[i].outstanding());
                }
            }
            assertEquals(0, dcq.poll(c));
            assertEquals(detached, dcq.orphanCqes());
            assertEquals(0, dcq.unexpectedCqes());
            for (int i = 0; i < n; i += 3)
            {
                assertEquals(1, sqs[i].outstanding(), "a detached queue retired a WQE");
            }
        }
    }

    /**
     * A QP torn down with receives outstanding on a CQ another QP shares, its queues detached: the device's flushes
     * (WR_FLUSH_ERR) are consumed as orphans and counted, the other QP's completions before and after them come out
     * exactly.
     */
    @Test
    @Timeout(60)
    void aDetachedQpsFlushesAreConsumedAndCounted()
    {
        try (Rig rig = new Rig())
        {
            final Shared s = new Shared(rig);
            s.flushX();
            assertTrue(s.dcq.detach(s.rqX));
            assertTrue(s.dcq.detach(s.sqX));
            s.expectYThenOrphans(5);
        }
    }

    /** As above, with the QP destroyed instead of detached. */
    @Test
    @Timeout(60)
    void aDestroyedQpsFlushesAreConsumedAndCounted()
    {
        try (Rig rig = new Rig())
        {
            final Shared s = new Shared(rig);
            s.flushX();
            s.x.close();
            s.expectYThenOrphans(5);
        }
    }

    /**
     * Error CQEs written by hand for a queue that was attached and is gone (REQ_ERR and RESP_ERR flushes of a
     * destroyed QP), between completions of a live one: consumed, counted, nothing of the live one disturbed, and no
     * allocation or exception on the way.
     */
    @Test
    @Timeout(60)
    void handWrittenFlushesOfADestroyedQp()
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(64);
            final QueuePair x = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final QueuePair y = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final SendQueue sqX = SendQueue.of(x, DoorbellMode.DOORBELL);
            final SendQueue sqY = SendQueue.of(y, DoorbellMode.DOORBELL);
            final RecvQueue rqX = RecvQueue.of(x);
            final CqPoller dcq = CqPoller.of(cq).attach(sqX).attach(sqY).attach(rqX);
            final CqeInjector device = new CqeInjector(cq);
            final int qpnX = x.qpn();
            assertTrue(sqY.nop(1, SendFlags.SIGNALED));
            assertTrue(sqY.nop(2, SendFlags.SIGNALED));
            x.close();
            device.req(y.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 0, 0);
            device.error(MLX5_CQE_REQ_ERR, qpnX, 0, SYNDROME_WR_FLUSH_ERR);
            device.error(MLX5_CQE_RESP_ERR, qpnX, 0, SYNDROME_WR_FLUSH_ERR);
            device.respSend(qpnX, 0, 0, 64, 0);
            device.req(qpnX, 0, Mlx5Opcode.MLX5_OPCODE_NOP, 1, 0);
            device.req(y.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 1, 0);
            final Completion c = new Completion();
            assertEquals(1, dcq.poll(c));
            assertCompletion(c, y.qpn(), 1);
            assertEquals(1, dcq.poll(c), "the four orphans between the two completions stopped the poll");
            assertCompletion(c, y.qpn(), 2);
            assertEquals(0, dcq.poll(c));
            assertEquals(4, dcq.orphanCqes());
            assertEquals(0, dcq.unexpectedCqes());
            assertEquals(0, sqY.outstanding());
        }
    }

    /**
     * CQEs no queue ever claimed (a QP number never attached; an opcode mlx5j does not decode) between completions:
     * consumed, counted, the last one's snapshot exact, and the CQ goes on. In strict mode the same CQE throws and
     * stays at the head until skipped.
     */
    @Test
    @Timeout(60)
    void anUnexpectedCqeDoesNotBlockTheCq()
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(64);
            final QueuePair y = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final QueuePair stranger = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final SendQueue sqY = SendQueue.of(y, DoorbellMode.DOORBELL);
            final CqPoller dcq = CqPoller.of(cq).attach(sqY);
            final CqeInjector device = new CqeInjector(cq);
            for (int i = 0; i < 4; i++)
            {
                assertTrue(sqY.nop(10 + i, SendFlags.SIGNALED));
            }
            device.req(y.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 0, 0);
            device.req(stranger.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 5, 0);          // ci 1
            device.req(y.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 1, 0);
            device.raw(9, y.qpn(), 77);                                               // ci 3: no such opcode
            device.req(y.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 2, 0);
            final Completion c = new Completion();
            assertEquals(1, dcq.poll(c));
            assertCompletion(c, y.qpn(), 10);
            assertEquals(1, dcq.poll(c));
            assertCompletion(c, y.qpn(), 11);
            assertEquals(1, dcq.unexpectedCqes());
            UnexpectedCqe u = dcq.lastUnexpected();
            assertEquals(1, u.consumerIndex());
            assertEquals(stranger.qpn(), u.qpn());
            assertEquals(0, u.cqeOpcode());
            assertEquals(5, u.wqeCounter());
            assertEquals(UnexpectedCqe.NO_SEND_QUEUE, u.reason());
            final Completions batch = new Completions(8);
            assertEquals(1, dcq.poll(batch, 8));
            assertCompletion(batch.get(0), y.qpn(), 12);
            assertEquals(2, dcq.unexpectedCqes());
            u = dcq.lastUnexpected();
            assertEquals(3, u.consumerIndex());
            assertEquals(9, u.cqeOpcode());
            assertEquals(77, u.wqeCounter());
            assertEquals(UnexpectedCqe.UNKNOWN_OPCODE, u.reason());
            final byte[] entry = new byte[u.cqeLength()];
            u.copyCqe(entry, 0);
            assertArrayEquals(u.cqe(), entry);
            assertEquals(0x90, entry[entry.length - 1] & 0xf0, "op_own of the copy");
            assertEquals(0, dcq.orphanCqes());

            // strict: reported, left at the head, again on the next poll, then skipped
            dcq.strict(true);
            device.req(stranger.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 6, 0);        // ci 5
            device.req(y.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 3, 0);
            final UnexpectedCqeException e = assertThrows(UnexpectedCqeException.class, () -> dcq.poll(c));
            assertEquals(5, e.consumerIndex());
            assertEquals(stranger.qpn(), e.qpn());
            assertEquals(6, e.wqeCounter());
            assertEquals(5, dcq.consumerIndex());
            assertThrows(UnexpectedCqeException.class, () -> dcq.poll(batch, 8));
            assertTrue(dcq.skip());
            assertEquals(1, dcq.poll(c));
            assertCompletion(c, y.qpn(), 13);
            assertEquals(2, dcq.unexpectedCqes(), "strict mode throws instead of counting");
            assertFalse(dcq.skip());
        }
    }

    /**
     * A destroyed QP bound to an SRQ that stays attached: its late receive CQE (written by hand, naming the SRQ WQE it
     * took) is an orphan, and the WQE goes back to the SRQ's free list instead of staying outstanding for good; the
     * SRQ's other QP still completes from it.
     */
    @Test
    @Timeout(60)
    void aDestroyedQpsSrqCqeGivesTheWqeBack()
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(64);
            final SharedReceiveQueue srq = rig.pd.createSrq(16, 1);
            final QueuePair x = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).srq(srq).build());
            final QueuePair y = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).srq(srq).build());
            final SrqRecvQueue srqQ = SrqRecvQueue.of(srq);
            final CqPoller dcq = CqPoller.of(cq).attach(srqQ, x).attach(srqQ, y);
            final MemoryRegion mr = rig.memory(4096);
            // never rung: the device does not see them; the free list hands out WQEs 0 and 1 first
            assertTrue(srqQ.post(21, mr.address(), mr.lkey(), 64));
            assertTrue(srqQ.post(22, mr.address() + 64, mr.lkey(), 64));
            assertEquals(2, srqQ.outstanding());
            final CqeInjector device = new CqeInjector(cq);
            final int qpnX = x.qpn();
            x.close();
            device.respSend(qpnX, 0, 0, 64, 0);
            device.respSend(y.qpn(), 0, 1, 64, 0);
            final Completion c = new Completion();
            assertEquals(1, dcq.poll(c));
            assertEquals(22, c.wrId());
            assertEquals(y.qpn(), c.qpn());
            assertEquals(WcOpcode.RECV, c.opcode());
            assertEquals(1, dcq.orphanCqes());
            assertEquals(0, srqQ.outstanding(), "the destroyed QP's SRQ WQE was not given back");
        }
    }

    /**
     * Orphans and unexpected CQEs allocate nothing: 40 rounds of 3,000 CQEs written by hand (a destroyed QP's send
     * and receive flushes, a never-attached QP's CQE), polled after 10 rounds of warm-up; the bytes the polling
     * thread allocated during the polls stay under 64 KiB (the threshold RawZeroAllocationTest uses).
     */
    @Test
    @Timeout(120)
    void orphansAndUnexpectedCqesAllocateNothing()
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(4096);
            final QueuePair x = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final QueuePair stranger = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final CqPoller dcq = CqPoller.of(cq).attach(SendQueue.of(x, DoorbellMode.DOORBELL))
                .attach(RecvQueue.of(x));
            final int qpnX = x.qpn();
            x.close();
            final CqeInjector device = new CqeInjector(cq);
            final Completion c = new Completion();
            final Completions batch = new Completions(16);
            final com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long allocated = 0;
            for (int round = 0; round < 50; round++)
            {
                for (int i = 0; i < 1000; i++)
                {
                    device.error(MLX5_CQE_REQ_ERR, qpnX, i, SYNDROME_WR_FLUSH_ERR);
                    device.error(MLX5_CQE_RESP_ERR, qpnX, i, SYNDROME_WR_FLUSH_ERR);
                    device.req(stranger.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, i, 0);
                }
                final long before = mx.getCurrentThreadAllocatedBytes();
                assertEquals(0, round % 2 == 0 ? dcq.poll(c) : dcq.poll(batch, 16));
                final long after = mx.getCurrentThreadAllocatedBytes();
                if (round >= 10)
                {
                    allocated += after - before;
                }
            }
            assertEquals(100_000, dcq.orphanCqes());
            assertEquals(50_000, dcq.unexpectedCqes());
            assertTrue(allocated < 65536, allocated + " bytes over 120,000 orphan and unexpected CQEs");
        }
    }

    /** QPs x and y on one CQ, each connected to itself; x has five receives posted. */
    private static final class Shared
    {
        final Rig rig;
        final CompletionQueue cq;
        final QueuePair x;
        final QueuePair y;
        final SendQueue sqX;
        final RecvQueue rqX;
        final SendQueue sqY;
        final CqPoller dcq;
        final Completion c = new Completion();

        Shared(final Rig rig)
        {
            this.rig = rig;
            cq = rig.cq(64);
            x = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(8).maxRecvWr(8).build());
            y = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(8).maxRecvWr(8).build());
            rig.connect(x, x);
            rig.connect(y, y);
            sqX = SendQueue.of(x, DoorbellMode.AUTO);
            rqX = RecvQueue.of(x);
            sqY = SendQueue.of(y, DoorbellMode.AUTO);
            dcq = CqPoller.of(cq).attach(sqX).attach(rqX).attach(sqY);
            final MemoryRegion mr = rig.memory(4096);
            for (int i = 0; i < 5; i++)
            {
                assertTrue(rqX.post(100 + i, mr.address() + 64L * i, mr.lkey(), 64));
            }
            rqX.ring();
        }

        /** y completes NOP 1; x goes to ERR, which flushes its five receives into the CQ; y completes NOP 2. */
        void flushX()
        {
            assertTrue(sqY.nop(1, SendFlags.SIGNALED | SendFlags.RING));
            Rig.await(dcq, c);
            assertCompletion(c, y.qpn(), 1);
            x.toError();
            waitForCqes(dcq, 5);
            assertTrue(sqY.nop(2, SendFlags.SIGNALED | SendFlags.RING));
            waitForCqes(dcq, 6);
        }

        void expectYThenOrphans(final int orphans)
        {
            assertEquals(1, dcq.poll(c));
            assertCompletion(c, y.qpn(), 2);
            assertEquals(0, dcq.poll(c));
            assertEquals(orphans, dcq.orphanCqes());
            assertEquals(0, dcq.unexpectedCqes());
            // the CQ goes on for y
            assertTrue(sqY.nop(3, SendFlags.SIGNALED | SendFlags.RING));
            Rig.await(dcq, c);
            assertCompletion(c, y.qpn(), 3);
            assertEquals(orphans, dcq.orphanCqes());
        }
    }

    private static void assertCompletion(final Completion c, final int qpn, final long wrId)
    {
        assertEquals(WcStatus.SUCCESS, c.status(), () -> "status of " + c);
        assertEquals(qpn, c.qpn(), () -> "qpn of " + c);
        assertEquals(wrId, c.wrId(), () -> "wr_id of " + c);
        assertEquals(WcOpcode.SEND, c.opcode(), () -> "opcode of " + c);
    }

    private static long wrId(final int qp, final int nth)
    {
        return (long) qp << 8 | nth;
    }

    /** The capacity of a QpnTable holding {@code n} entries: the smallest power of two of at least 16 and 2n. */
    private static int tableCapacity(final int n)
    {
        int cap = 16;
        while (cap < 2 * n)
        {
            cap *= 2;
        }
        return cap;
    }

    private static int[] shuffled(final int n, final long seed)
    {
        final int[] a = new int[n];
        for (int i = 0; i < n; i++)
        {
            a[i] = i;
        }
        final Random r = new Random(seed);
        for (int i = n - 1; i > 0; i--)
        {
            final int j = r.nextInt(i + 1);
            final int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }

    /** Waits until the CQ holds {@code n} unpolled CQEs, without consuming any (reads the owner bits). */
    private static void waitForCqes(final CqPoller dcq, final int n)
    {
        final var ring = dcq.completionQueue().ring();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            final int at = dcq.consumerIndex() + n - 1;
            final int cnt = ring.cqeCnt();
            final long opOwn = (long) (at & (cnt - 1)) * ring.cqeSize() + ring.cqeSize() - 1;
            final int b = ring.buf().get(java.lang.foreign.ValueLayout.JAVA_BYTE, opOwn) & 0xff;
            if ((b >>> 4) != 0xf && (b & 1) == ((at / cnt) & 1))
            {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError(n + " CQEs did not arrive within 10 s");
    }
}
