// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.Completions;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.CompletionChannel;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Behaviour of the direct path beyond single operations (engine on, strict): completion events through the arm
 * doorbell and the channel (including solicited-only arming), batch polling with one consumer-index update, zero
 * allocation per post and poll, clear exceptions for programming errors, and the debug-mode owner-thread check (in
 * a child JVM started with -Dmlx5j.debug=true, since the switch is a static final flag).
 */
class DirectBehaviourTest
{
    private Rig rig;
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

    @Test
    void armedCqRaisesAnEventOnTheChannelAndSolicitedOnlyWaitsForSolicited()
    {
        final CompletionChannel channel = rig.context.createCompletionChannel();
        final CompletionQueue cq = rig.context.createCq(64, 64, channel, 0);
        final QueuePair a = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final QueuePair b = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        rig.connect(a, b);
        final SendQueue sq = SendQueue.of(a, DoorbellMode.AUTO);
        final RecvQueue rq = RecvQueue.of(b);
        final CqPoller dcq = CqPoller.of(cq).attach(sq).attach(rq);
        final MemoryRegion mr = rig.memory(8192);
        final Completions batch = new Completions(8);

        assertFalse(dcq.awaitEvent(50), "no event without arming");
        dcq.arm(false);
        assertTrue(rq.post(1, mr.address() + 4096, mr.lkey(), 4096));
        rq.ring();
        assertTrue(sq.send(2, mr.address(), mr.lkey(), 64, SendFlags.SIGNALED | SendFlags.RING));
        assertTrue(dcq.awaitEvent(5000), "event after arming");
        int n = 0;
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (n < 2 && System.nanoTime() < deadline)
        {
            n += dcq.poll(batch, 8 - n);
        }
        assertEquals(2, dcq.consumerIndex(), "both CQEs consumed");

        // solicited only: an unsolicited SEND raises no event, a solicited one does
        dcq.arm(true);
        assertTrue(rq.post(3, mr.address() + 4096, mr.lkey(), 4096));
        assertTrue(rq.post(4, mr.address() + 4096, mr.lkey(), 4096));
        rq.ring();
        assertTrue(sq.send(5, mr.address(), mr.lkey(), 64, SendFlags.SIGNALED | SendFlags.RING));
        assertFalse(dcq.awaitEvent(300), "no event for an unsolicited SEND when armed solicited-only");
        assertTrue(sq.send(6, mr.address(), mr.lkey(), 64, SendFlags.SIGNALED | SendFlags.SOLICITED | SendFlags.RING));
        assertTrue(dcq.awaitEvent(5000), "event for the solicited SEND");
        final Completion c = new Completion();
        int seen = 0;
        final long until = System.nanoTime() + 5_000_000_000L;
        while (seen < 4 && System.nanoTime() < until)
        {
            seen += dcq.poll(c);
        }
        assertEquals(4, seen);
        assertEquals(2, cq.eventsReceived());
    }

    @Test
    void postAndPollAllocateNothing()
    {
        // BlueFlame, the heavier path: every post copies its WQE into the register, and the emulator's strict mode
        // checks each copy against the ring
        final Pair p = new Pair(rig, QpType.RC, false, io.mlx5j.verbs.RtsAttributes.of(0x100), DoorbellMode.BLUEFLAME);
        final Completion c = new Completion();
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long tid = Thread.currentThread().threadId();
        final long l = p.mrA.address();
        final long r = p.mrB.address();
        for (int round = 0; round < 3; round++)
        {
            final long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 3_000; i++)
            {
                if (!p.sqA.rdmaWrite(i, l, p.mrA.lkey(), 64, r, p.mrB.rkey(), SendFlags.SIGNALED | SendFlags.RING))
                {
                    throw new AssertionError("ring full at " + i);
                }
                while (p.dcqA.poll(c) == 0)
                {
                    Thread.onSpinWait();
                }
                if (c.statusCode() != 0)
                {
                    throw new AssertionError(c.toString());
                }
            }
            final long allocated = mx.getThreadAllocatedBytes(tid) - before;
            if (round == 2)
            {
                // after two warm-up rounds: less than one byte per post+ring+poll cycle, i.e. no allocation per
                // operation (the smallest object is 16 bytes); what remains are one-off runtime events of this
                // thread while the JIT is still compiling (seen: 0 and 176 bytes in total)
                assertTrue(allocated < 3_000, "bytes allocated by 3000 post+poll cycles: " + allocated);
            }
        }
    }

    /**
     * The one-call posts write straight into the ring, but keep the staging form's contract: a post that finds the
     * ring full writes nothing and leaves its WR staged for post(), and a one-call post replaces a staged WR.
     */
    @Test
    void aOneCallPostThatFindsTheRingFullStaysStaged()
    {
        final Pair p = new Pair(rig, QpType.RC);
        final long l = p.mrA.address();
        final long r = p.mrB.address();
        Rig.fill(p.mrA.memory(), 0, 64, 3);
        int nops = 0;
        while (p.sqA.nop(100 + nops, SendFlags.SIGNALED))
        {
            nops++;
        }
        assertEquals(0, p.sqA.freeWqebb());
        final int producer = p.sqA.producerCounter();
        assertFalse(p.sqA.rdmaWrite(7, l, p.mrA.lkey(), 64, r + 4096, p.mrB.rkey(), SendFlags.SIGNALED));
        assertEquals(producer, p.sqA.producerCounter(), "a full ring: nothing written");
        assertEquals(nops, p.sqA.ring());
        final Completion c = new Completion();
        for (int i = 0; i < nops; i++)
        {
            assertEquals(100 + i, pollOne(p.dcqA, c).wrId());
        }
        assertTrue(p.sqA.post(), "the refused WR stayed staged");
        assertEquals(1, p.sqA.ring());
        pollOne(p.dcqA, c);
        assertEquals(7, c.wrId());
        assertEquals(io.mlx5j.direct.WcOpcode.RDMA_WRITE, c.opcode());
        assertEquals(-1, p.mrA.memory().asSlice(0, 64).mismatch(p.mrB.memory().asSlice(4096, 64)), "written data");

        p.sqA.begin(8, io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_NOP, SendFlags.SIGNALED);
        assertTrue(p.sqA.nop(9, SendFlags.SIGNALED | SendFlags.RING));
        assertEquals(9, pollOne(p.dcqA, c).wrId());
        assertThrows(IllegalStateException.class, () -> p.sqA.post(), "the one-call post replaced the staged WR");
        assertEquals(0, p.sqA.outstanding());
    }

    private static Completion pollOne(final CqPoller cq, final Completion c)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cq.poll(c) == 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no completion within 10 s on " + cq);
            }
            Thread.onSpinWait();
        }
        assertTrue(c.isSuccess(), c.toString());
        return c;
    }

    @Test
    void programmingErrorsThrowClearly()
    {
        final Pair p = new Pair(rig, QpType.RC);
        final long l = p.mrA.address();
        final IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
            () -> p.sqA.begin(1, io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND, 0).sge(l, 1, 1).sge(l, 1, 1).sge(l, 1, 1)
                .sge(l, 1, 1).sge(l, 1, 1));
        assertTrue(tooMany.getMessage().contains("at most 4 SGEs"), tooMany.getMessage());
        final IllegalArgumentException inline = assertThrows(IllegalArgumentException.class,
            () -> p.sqA.send(2, l, 0, p.sqA.maxInlineData() + 1, SendFlags.INLINE));
        assertTrue(inline.getMessage().contains("max inline"), inline.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.sqA.rdmaRead(3, l, 0, 8, l, 0, SendFlags.INLINE));
        final IllegalArgumentException nullPage = assertThrows(IllegalArgumentException.class,
            () -> p.sqA.send(3, 0, 0, 8, SendFlags.INLINE));
        assertTrue(nullPage.getMessage().contains("null page"), nullPage.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.sqA.send(4, l, 0, 8, 1 << 10));
        // a verbs flag this QP type cannot honour is refused by name, not ignored
        final IllegalArgumentException csum = assertThrows(IllegalArgumentException.class,
            () -> p.sqA.send(4, l, 0, 8, SendFlags.IP_CSUM | SendFlags.SIGNALED));
        assertTrue(csum.getMessage().contains("IP_CSUM") && csum.getMessage().contains("raw packet"),
            csum.getMessage());
        assertThrows(IllegalStateException.class, () -> p.sqA.post(), "post without begin");
        assertEquals(0, p.sqA.outstanding(), "nothing was written by the failed calls");
        // a closed QP: its ring segments are scoped to it
        p.a.close();
        assertThrows(IllegalStateException.class, () -> p.sqA.nop(5, SendFlags.SIGNALED));
    }

    @Test
    void debugModeChecksTheOwnerThread() throws Exception
    {
        final Process child = new ProcessBuilder(ChildProcess.javaCommand(OwnerCheckMain.class, "-Dmlx5j.debug=true"))
            .redirectErrorStream(true).start();
        final String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.contains("OWNER-CHECK-OK"), out);
    }

    /** Child JVM with -Dmlx5j.debug=true: a post from a second thread must fail and name both threads. */
    public static final class OwnerCheckMain
    {
        public static void main(final String[] args) throws Exception
        {
            try (Rig rig = new Rig())
            {
                final Pair p = new Pair(rig, QpType.RC);
                final Completion c = new Completion();
                if (!p.sqA.nop(1, SendFlags.SIGNALED | SendFlags.RING))
                {
                    throw new AssertionError("post failed");
                }
                Rig.await(p.dcqA, c);
                final Throwable[] seen = new Throwable[2];
                final Thread other = new Thread(() ->
                {
                    try
                    {
                        p.sqA.nop(2, SendFlags.SIGNALED);
                    }
                    catch (final Throwable t)
                    {
                        seen[0] = t;
                    }
                    try
                    {
                        p.dcqA.poll(c);
                    }
                    catch (final Throwable t)
                    {
                        seen[1] = t;
                    }
                }, "intruder");
                other.start();
                other.join();
                if (!(seen[0] instanceof IllegalStateException) || !seen[0].getMessage().contains("intruder") ||
                    !(seen[1] instanceof IllegalStateException))
                {
                    throw new AssertionError("owner check did not fire: " + seen[0] + " / " + seen[1]);
                }
                if (p.sqA.outstanding() != 0)
                {
                    throw new AssertionError("the refused post wrote a WQE");
                }
                // a queue and the CqPoller that retires it are one unit: posting on B's queue from this thread
                // and polling B's CQ from another fails, naming both threads (each used to pass on its own)
                seen[0] = null;
                seen[1] = null;
                if (!p.sqB.nop(3, SendFlags.SIGNALED | SendFlags.RING))
                {
                    throw new AssertionError("post failed");
                }
                final Thread poller = new Thread(() ->
                {
                    try
                    {
                        p.dcqB.poll(c);
                    }
                    catch (final Throwable t)
                    {
                        seen[0] = t;
                    }
                }, "poller");
                poller.start();
                poller.join();
                final String me = Thread.currentThread().getName();
                if (!(seen[0] instanceof IllegalStateException) || !seen[0].getMessage().contains("'poller'") ||
                    !seen[0].getMessage().contains("'" + me + "'") || !seen[0].getMessage().contains("CqPoller"))
                {
                    throw new AssertionError("poll of the queue's CqPoller from a second thread: " + seen[0]);
                }
                // an explicit hand-over: the poller claims the group (after this thread stopped), then polls and posts
                final Thread owner = new Thread(() ->
                {
                    try
                    {
                        p.dcqB.claim();
                        Rig.await(p.dcqB, c);
                        if (c.wrId() != 3 || !p.sqB.nop(4, SendFlags.SIGNALED | SendFlags.RING))
                        {
                            throw new AssertionError("claimed group: " + c);
                        }
                        Rig.await(p.dcqB, c);
                    }
                    catch (final Throwable t)
                    {
                        seen[1] = t;
                    }
                }, "new-owner");
                owner.start();
                owner.join();
                if (seen[1] != null)
                {
                    throw new AssertionError("the claimed group failed in its new thread", seen[1]);
                }
                try
                {
                    p.sqB.nop(5, SendFlags.SIGNALED);
                    throw new AssertionError("the old owner still posts after the hand-over");
                }
                catch (final IllegalStateException expected)
                {
                    if (!expected.getMessage().contains("'new-owner'"))
                    {
                        throw new AssertionError(expected);
                    }
                }
                // the close rule: a QP whose queue belongs to a running thread cannot be closed from another one
                // (the one-call posts write its ring unchecked after one liveness check); it stays open
                closeRefusedWhileOwnerRuns("holder", () ->
                {
                    p.sqA.claim();
                    p.sqA.nop(6, SendFlags.SIGNALED | SendFlags.RING);
                }, p.a, p.a::isClosed);
                // the same rule for a CQ (a poll call reads its ring unchecked after one liveness check)
                closeRefusedWhileOwnerRuns("cq-holder", () ->
                {
                    p.dcqA.claim();
                    // the holder's NOP 6 completed for QP a, now destroyed: a CQE no live queue takes
                    while (p.dcqA.skip())
                    {
                        Thread.onSpinWait();
                    }
                }, p.cqA, p.cqA::isClosed);
                // and for a QP whose only direct queue is a receive queue (its one-buffer post writes unchecked too)
                final QueuePair receiver = rig.pd.createQp(QpConfig.builder(QpType.RC, p.cqB).build());
                final RecvQueue rq = RecvQueue.of(receiver);
                closeRefusedWhileOwnerRuns("rq-holder", () ->
                {
                    rq.claim();
                    if (!rq.post(7, p.mrB.address(), p.mrB.lkey(), 64))
                    {
                        throw new AssertionError("receive post failed");
                    }
                }, receiver, receiver::isClosed);
                p.dcqA.claim();
                try
                {
                    p.dcqA.poll(c);
                    throw new AssertionError("polled a closed CQ");
                }
                catch (final IllegalStateException expected)
                {
                    if (!expected.getMessage().contains("the CQ is closed"))
                    {
                        throw new AssertionError(expected);
                    }
                }
                System.out.println("OWNER-CHECK-OK " + seen[0].getMessage());
            }
        }

        /**
         * The close rule, debug-checked: {@code use} runs in a thread named {@code name}, which then stays alive;
         * closing {@code resource} from this thread must throw, naming that thread, and leave it open. Once that
         * thread has ended, the close is allowed.
         */
        private static void closeRefusedWhileOwnerRuns(final String name, final Runnable use,
            final AutoCloseable resource, final BooleanSupplier closed) throws Exception
        {
            final CountDownLatch used = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            final Thread owner = new Thread(() ->
            {
                use.run();
                used.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }, name);
            owner.setDaemon(true);     // a failed check below must not keep this JVM alive
            owner.start();
            if (!used.await(30, TimeUnit.SECONDS))
            {
                throw new AssertionError("thread '" + name + "' did not get to use " + resource);
            }
            try
            {
                resource.close();
                throw new AssertionError("closed " + resource + " while its owner thread '" + name + "' runs");
            }
            catch (final IllegalStateException expected)
            {
                if (!expected.getMessage().contains("'" + name + "'") || closed.getAsBoolean())
                {
                    throw new AssertionError("close rule: " + expected.getMessage() + ", closed " +
                        closed.getAsBoolean(), expected);
                }
            }
            finally
            {
                release.countDown();
            }
            owner.join();
            resource.close();   // the owner thread has ended: allowed
            if (!closed.getAsBoolean())
            {
                throw new AssertionError(resource + " still open after its owner thread ended");
            }
        }
    }
}
