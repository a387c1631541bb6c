// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CqPoller#closeAsync} under stress: 1,000 connect/disconnect cycles of an RC pair while traffic runs. In each
 * cycle the owner thread posts SENDs from QP a to QP b, keeps b's receive ring full and a's receives posted, and
 * polls the one CQ; this thread, as the rdma_cm thread that saw DISCONNECTED would, requests the close of a and then
 * of b. Each cycle (its own test case, with its own timeout) must end with: the JVM alive; every WR posted on either
 * QP completed exactly once (success or WR_FLUSH_ERR, by wr_id, checked on the owner thread); the flushes seen equal
 * to the poller's {@link CqPoller#flushes()} count; posts after the request refused with IllegalStateException; no
 * orphan or unexpected CQE; and the emulated kernel's live object counts back at what they were before the cycle.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QpCloseStressTest
{
    private static final int CYCLES = 1000;
    /** SENDs the owner keeps in flight on a, below b's receive ring and a's send ring. */
    private static final int IN_FLIGHT = 8;
    private static final int RECV_RING = 16;
    private static final int MSG = 64;
    private static final int A_SEND = 0;
    private static final int A_RECV = 1;
    private static final int B_RECV = 2;

    private Context ctx;
    private ProtectionDomain pd;
    private Arena arena;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private CqPoller poller;
    private PortAttributes port;
    private Map<String, Long> baseline;
    private Thread owner;
    private final BlockingQueue<Cycle> handoff = new ArrayBlockingQueue<>(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;

    /** One connection: created and closed by the test thread, posted and polled by the owner. */
    private static final class Cycle
    {
        final int n;
        final QueuePair a;
        final QueuePair b;
        final SendQueue sqA;
        final RecvQueue rqA;
        final RecvQueue rqB;
        volatile QpClose closeA;
        volatile QpClose closeB;
        /** Owner-written, read after {@link #report}: posted, completed, flushed per kind; refused posts. */
        final long[] posted = new long[3];
        final long[] completed = new long[3];
        final long[] flushed = new long[3];
        long refused;
        long pollerFlushes;
        volatile long sendsOk;
        /** The owner attached the queues and posted the receives. */
        volatile boolean started;
        final BlockingQueue<String> report = new ArrayBlockingQueue<>(1);

        Cycle(final int n, final QueuePair a, final QueuePair b)
        {
            this.n = n;
            this.a = a;
            this.b = b;
            this.sqA = SendQueue.of(a, DoorbellMode.AUTO);
            this.rqA = RecvQueue.of(a);
            this.rqB = RecvQueue.of(b);
        }
    }

    @BeforeAll
    void open()
    {
        ctx = Context.open("mlx5_0");
        pd = ctx.allocPd();
        arena = Arena.ofShared();
        final MemorySegment buf = arena.allocate(2L * MSG, 4096);
        mr = pd.register(arena, buf, Access.LOCAL_WRITE);
        cq = ctx.createCq(256);
        poller = CqPoller.of(cq).strict(false);
        port = ctx.queryPort(1);
        baseline = new TreeMap<>(EmulatedDevice.live());
        owner = new Thread(this::ownerLoop, "owner");
        owner.start();
    }

    @AfterAll
    void close() throws InterruptedException
    {
        stop = true;
        owner.join(TimeUnit.SECONDS.toMillis(60));
        try
        {
            assertFalse(owner.isAlive(), "owner thread ended");
            assertNull(failure.get(), () -> "owner failed: " + failure.get());
            assertEquals(0, poller.orphanCqes(), "orphan CQEs");
            assertEquals(0, poller.unexpectedCqes(), "unexpected CQEs");
            assertEquals(baseline, new TreeMap<>(EmulatedDevice.live()), "live emulated objects");
        }
        finally
        {
            ctx.close();
            arena.close();
        }
    }

    @RepeatedTest(CYCLES)
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closeFromAnotherThreadWhileTheOwnerPostsAndPolls(final RepetitionInfo info) throws InterruptedException
    {
        assertNull(failure.get(), () -> "owner failed in an earlier cycle: " + failure.get());
        final int n = info.getCurrentRepetition();
        final QueuePair a = pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(16).maxRecvWr(RECV_RING).build());
        final QueuePair b = pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(1).maxRecvWr(RECV_RING).build());
        a.connect(1, mr.access(), 0, port.activeMtu(), PeerInfo.of(port.lid(), b.qpn(), 0, ctx.queryGid(1, 0)),
            AddressVector.ib(1, port.lid(), 0), 0);
        b.connect(1, mr.access(), 0, port.activeMtu(), PeerInfo.of(port.lid(), a.qpn(), 0, ctx.queryGid(1, 0)),
            AddressVector.ib(1, port.lid(), 0), 0);
        final Cycle cycle = new Cycle(n, a, b);
        assertTrue(handoff.offer(cycle, 30, TimeUnit.SECONDS), "owner takes the connection");
        // traffic runs for a varying number of SENDs (0 to 6 completed), then the disconnect
        while ((!cycle.started || cycle.sendsOk < n % 7) && failure.get() == null)
        {
            Thread.onSpinWait();
        }
        cycle.closeA = poller.closeAsync(a);
        assertTrue(cycle.closeA.await(30, TimeUnit.SECONDS), "close of a done");
        assertTrue(a.isClosed(), "a destroyed");
        cycle.closeB = poller.closeAsync(b);
        assertTrue(cycle.closeB.await(30, TimeUnit.SECONDS), "close of b done");
        assertTrue(b.isClosed(), "b destroyed");
        final String report = cycle.report.poll(30, TimeUnit.SECONDS);
        assertNull(failure.get(), () -> "owner failed: " + failure.get());
        assertNotNull(report, "owner reported the cycle");
        assertEquals("ok", report);
        for (int k = 0; k < 3; k++)
        {
            assertEquals(cycle.posted[k], cycle.completed[k], "kind " + k + ": every posted WR completed once");
        }
        assertEquals(cycle.posted[A_RECV], cycle.flushed[A_RECV], "a's receives, never matched, all flushed");
        assertTrue(cycle.refused >= 1, "a post after the close request was refused");
        assertEquals(cycle.flushed[0] + cycle.flushed[1] + cycle.flushed[2], cycle.pollerFlushes,
            "flush completions seen vs CqPoller.flushes()");
        assertEquals(baseline, new TreeMap<>(EmulatedDevice.live()), "live emulated objects after cycle " + n);
        if (n % 100 == 0)
        {
            System.out.printf("QpCloseStressTest cycle %d: a sent %d (%d flushed), a's receives %d flushed, b "
                + "received %d (%d flushed), %d posts refused%n", n, cycle.posted[A_SEND], cycle.flushed[A_SEND],
                cycle.flushed[A_RECV], cycle.posted[B_RECV], cycle.flushed[B_RECV], cycle.refused);
        }
    }

    /** The owner: attaches each connection's queues, posts, polls, checks every completion, reports the cycle. */
    private void ownerLoop()
    {
        try
        {
            final Completion wc = new Completion();
            Cycle cur = null;
            BitSet[] seen = null;
            long flushesAtStart = 0;
            boolean aClosed = false;
            boolean bClosed = false;
            long inFlight = 0;
            while (!stop || cur != null)
            {
                if (cur == null)
                {
                    cur = handoff.poll(1, TimeUnit.MILLISECONDS);
                    if (cur == null)
                    {
                        continue;
                    }
                    poller.attach(cur.sqA).attach(cur.rqA).attach(cur.rqB);
                    seen = new BitSet[] {new BitSet(), new BitSet(), new BitSet()};
                    flushesAtStart = poller.flushes();
                    aClosed = false;
                    bClosed = false;
                    inFlight = 0;
                    for (int i = 0; i < RECV_RING; i++)
                    {
                        postRecv(cur, cur.rqA, A_RECV);
                        postRecv(cur, cur.rqB, B_RECV);
                    }
                    cur.rqA.ring();
                    cur.rqB.ring();
                    cur.started = true;
                }
                if (!aClosed && inFlight < IN_FLIGHT)
                {
                    try
                    {
                        final long id = wrId(cur, A_SEND, cur.posted[A_SEND]);
                        if (cur.sqA.send(id, mr.address(), mr.lkey(), MSG, SendFlags.SIGNALED | SendFlags.RING))
                        {
                            cur.posted[A_SEND]++;
                            inFlight++;
                        }
                    }
                    catch (final IllegalStateException closing)
                    {
                        assertTrue(closing.getMessage().contains(" clos"), closing.getMessage());
                        cur.refused++;
                        aClosed = true;
                    }
                }
                while (poller.poll(wc) == 1)
                {
                    final long id = wc.wrId();
                    final int kind = (int) (id >>> 56);
                    final long seq = id & 0xffff_ffffL;
                    if ((int) (id >>> 32 & 0xff_ffff) != cur.n || kind > 2 || seq >= cur.posted[kind] ||
                        seen[kind].get((int) seq))
                    {
                        throw new AssertionError("cycle " + cur.n + ": completion of wr_id 0x" + Long.toHexString(id)
                            + " twice or never posted (" + wc.status() + ")");
                    }
                    seen[kind].set((int) seq);
                    cur.completed[kind]++;
                    if (wc.status() == WcStatus.WR_FLUSH_ERR)
                    {
                        cur.flushed[kind]++;
                    }
                    else if (!wc.isSuccess())
                    {
                        throw new AssertionError("cycle " + cur.n + ": wr_id 0x" + Long.toHexString(id) + " ended "
                            + wc.status());
                    }
                    if (kind == A_SEND)
                    {
                        inFlight--;
                        if (wc.isSuccess())
                        {
                            cur.sendsOk++;
                        }
                    }
                    else if (kind == B_RECV && wc.isSuccess())
                    {
                        assertEquals(MSG, wc.byteLen(), "received length");
                        if (!bClosed)
                        {
                            try
                            {
                                postRecv(cur, cur.rqB, B_RECV);
                                cur.rqB.ring();
                            }
                            catch (final IllegalStateException closing)
                            {
                                assertTrue(closing.getMessage().contains(" clos"), closing.getMessage());
                                bClosed = true;
                            }
                        }
                    }
                }
                final QpClose ca = cur.closeA;
                final QpClose cb = cur.closeB;
                if (ca != null && cb != null && ca.isDone() && cb.isDone())
                {
                    // every completion of both QPs came before their destroy; check once more that none is left
                    if (poller.poll(wc) != 0)
                    {
                        throw new AssertionError("cycle " + cur.n + ": a completion after the close was done: 0x"
                            + Long.toHexString(wc.wrId()));
                    }
                    cur.pollerFlushes = poller.flushes() - flushesAtStart;
                    final Cycle done = cur;
                    cur = null;
                    done.report.add("ok");
                }
            }
        }
        catch (final Throwable ex)
        {
            failure.compareAndSet(null, ex);
        }
    }

    private void postRecv(final Cycle c, final RecvQueue rq, final int kind)
    {
        if (rq.post(wrId(c, kind, c.posted[kind]), mr.address() + MSG, mr.lkey(), MSG))
        {
            c.posted[kind]++;
        }
    }

    /** Kind in the top byte, the cycle in the next three, the kind's sequence number in the low four. */
    private static long wrId(final Cycle c, final int kind, final long seq)
    {
        return (long) kind << 56 | (long) c.n << 32 | seq;
    }
}
