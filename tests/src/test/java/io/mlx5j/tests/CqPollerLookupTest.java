// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.Completions;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.UnexpectedCqeException;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.Mlx5Opcode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which queue a CQE belongs to: detach and a destroyed QP whose number may be reused (their CQEs are orphans, consumed
 * and counted), and, in strict mode, a CQE no attached queue claims, which is reported with its contents and stays in
 * the CQ until its queue is attached or it is skipped. SharedCqTest covers many QPs and the default mode.
 */
class CqPollerLookupTest
{
    @Test
    void aDetachedQueuesCqeIsAnOrphanAndANeverAttachedOneStaysInStrictMode()
    {
        try (Rig rig = new Rig())
        {
            final Pair p = new Pair(rig, QpType.RC);
            final Completion c = new Completion();
            assertTrue(p.dcqA.detach(p.sqA));
            assertFalse(p.dcqA.detach(p.sqA));
            p.dcqA.strict(true);
            assertTrue(p.sqA.nop(7, SendFlags.SIGNALED | SendFlags.RING));
            // detached: consumed as an orphan even in strict mode, the queue's WQE not retired
            awaitOrphans(p.dcqA, c, 1);
            assertEquals(1, p.sqA.outstanding());
            assertEquals(0, p.dcqA.unexpectedCqes());
            // attached again, the next CQE retires both WQEs (an earlier WQE retires with a later signaled one)
            p.dcqA.attach(p.sqA);
            assertTrue(p.sqA.nop(8, SendFlags.SIGNALED | SendFlags.RING));
            Rig.await(p.dcqA, c);
            assertEquals(8, c.wrId());
            assertEquals(0, p.sqA.outstanding());

            // strict mode, a QP never attached here: reported, kept at the head, decoded once its queue is attached
            final QueuePair z = rig.pd.createQp(QpConfig.builder(QpType.RC, p.cqA).build());
            rig.connect(z, z);
            final SendQueue sqZ = SendQueue.of(z, DoorbellMode.AUTO);
            assertTrue(sqZ.nop(9, SendFlags.SIGNALED | SendFlags.RING));
            final UnexpectedCqeException first = awaitUnexpected(p.dcqA, c);
            assertEquals(z.qpn(), first.qpn());
            assertEquals(0, first.wqeCounter());
            assertEquals(0, first.cqeOpcode());  // MLX5_CQE_REQ
            assertEquals(64, first.cqe().length);
            assertEquals(z.qpn(), beInt(first.cqe(), 0x38) & 0xffffff, "the copy is the entry (sop_drop_qpn)");
            final UnexpectedCqeException again = assertThrows(UnexpectedCqeException.class, () -> p.dcqA.poll(c));
            assertEquals(first.consumerIndex(), again.consumerIndex());
            assertEquals(first.consumerIndex(), p.dcqA.consumerIndex());
            p.dcqA.attach(sqZ);
            assertEquals(1, p.dcqA.poll(c));
            assertEquals(9, c.wrId());
            assertEquals(0, sqZ.outstanding());

            // skip(): consumed without decoding; the queue's WQE is then never retired
            final QueuePair w = rig.pd.createQp(QpConfig.builder(QpType.RC, p.cqA).build());
            rig.connect(w, w);
            final SendQueue sqW = SendQueue.of(w, DoorbellMode.AUTO);
            assertTrue(sqW.nop(10, SendFlags.SIGNALED | SendFlags.RING));
            awaitUnexpected(p.dcqA, c);
            assertTrue(p.dcqA.skip());
            assertEquals(0, p.dcqA.poll(c));
            assertFalse(p.dcqA.skip());
            assertEquals(1, sqW.outstanding());
            assertEquals(0, p.dcqA.unexpectedCqes(), "strict mode throws instead of counting");
        }
    }

    /** Strict mode: a batch hands out the completions before an unexpected CQE; the next poll reports it. */
    @Test
    void aBatchEndsBeforeAnUnexpectedCqe()
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(64);
            final QueuePair x = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final QueuePair y = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            rig.connect(x, y);
            final SendQueue sqX = SendQueue.of(x, DoorbellMode.AUTO);
            final SendQueue sqY = SendQueue.of(y, DoorbellMode.AUTO);
            final CqPoller dcq = CqPoller.of(cq).attach(sqX).strict(true);
            final Completion c = new Completion();
            assertTrue(sqX.nop(1, SendFlags.SIGNALED | SendFlags.RING));
            Rig.await(dcq, c);
            assertTrue(sqX.nop(2, SendFlags.SIGNALED | SendFlags.RING));
            waitForCqes(dcq, 1);
            assertTrue(sqY.nop(3, SendFlags.SIGNALED | SendFlags.RING));
            waitForCqes(dcq, 2);
            assertTrue(sqX.nop(4, SendFlags.SIGNALED | SendFlags.RING));
            waitForCqes(dcq, 3);
            final Completions batch = new Completions(8);
            assertEquals(1, dcq.poll(batch, 8));
            assertEquals(2, batch.get(0).wrId());
            final UnexpectedCqeException e = assertThrows(UnexpectedCqeException.class, () -> dcq.poll(batch, 8));
            assertEquals(y.qpn(), e.qpn());
            dcq.attach(sqY);
            assertEquals(2, dcq.poll(batch, 8));
            assertEquals(3, batch.get(0).wrId());
            assertEquals(4, batch.get(1).wrId());
        }
    }

    /**
     * A destroyed QP's queue never receives a CQE, even one naming its QP number (which a new QP may reuse): the CQE
     * is written by hand into a CQ nothing else writes to, with the QP's number, once while the QP lives (decoded)
     * and once after it was destroyed (an orphan, the dead queue untouched).
     */
    @Test
    void aDeadQueueNeverMatchesItsReusableQpNumber()
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(64);
            final QueuePair y = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            rig.connect(y, y);
            final SendQueue sq = SendQueue.of(y, DoorbellMode.AUTO);
            final CqPoller dcq = CqPoller.of(cq).attach(sq);
            final CqeInjector device = new CqeInjector(cq);
            final int qpn = y.qpn();
            final Completion c = new Completion();
            // WQEs written but never rung: the emulated device does not see them, the injector completes them
            assertTrue(sq.nop(11, SendFlags.SIGNALED));
            device.req(qpn, 0, Mlx5Opcode.MLX5_OPCODE_NOP, 0, 0);
            assertEquals(1, dcq.poll(c));
            assertEquals(11, c.wrId());
            assertTrue(sq.nop(12, SendFlags.SIGNALED));
            y.close();
            device.req(qpn, 0, Mlx5Opcode.MLX5_OPCODE_NOP, 1, 0);
            assertEquals(0, dcq.poll(c), "an orphan: consumed, no completion");
            assertEquals(1, dcq.orphanCqes());
            assertEquals(1, sq.outstanding(), "the dead queue retired a WQE for a CQE of another QP");
            // a new queue of that number may be attached (the dead one is retired), and then takes its CQEs
            final QueuePair z = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            rig.connect(z, z);
            final SendQueue sqZ = SendQueue.of(z, DoorbellMode.AUTO);
            dcq.attach(sqZ);
            assertThrows(IllegalArgumentException.class, () -> dcq.attach(sqZ), "two live queues of one QP");
            assertTrue(sqZ.nop(13, SendFlags.SIGNALED));
            device.req(z.qpn(), 0, Mlx5Opcode.MLX5_OPCODE_NOP, 0, 0);
            assertEquals(1, dcq.poll(c));
            assertEquals(13, c.wrId());
            assertEquals(z.qpn(), c.qpn());
            assertEquals(1, dcq.orphanCqes());
            assertEquals(0, dcq.unexpectedCqes());
        }
    }

    private static void awaitOrphans(final CqPoller dcq, final Completion c, final long n)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (dcq.orphanCqes() < n && System.nanoTime() < deadline)
        {
            assertEquals(0, dcq.poll(c), () -> "completion " + c + " instead of an orphan");
            Thread.onSpinWait();
        }
        assertEquals(n, dcq.orphanCqes());
    }

    private static UnexpectedCqeException awaitUnexpected(final CqPoller dcq, final Completion c)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            try
            {
                assertEquals(0, dcq.poll(c), () -> "completion " + c + " instead of an unexpected CQE");
            }
            catch (final UnexpectedCqeException e)
            {
                return e;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no CQE within 10 s");
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

    private static int beInt(final byte[] b, final int at)
    {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
    }
}
