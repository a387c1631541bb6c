// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.AsyncEvent;
import io.mlx5j.verbs.AsyncEvents;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CqPoller#closeAsync} step by step, on the emulated device: what the requester records, what the owner does
 * in its poll calls, in which order, and the paths around it (a QP on an SRQ, an owner that stopped polling, a QP
 * of another CQ, a QP closed already).
 */
class QpCloseTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int MSG = 64;

    /** A connected RC pair on one CQ, b optionally on an SRQ. */
    private static final class Pair
    {
        final ProtectionDomain pd;
        final MemoryRegion mr;
        final CompletionQueue cq;
        final SharedReceiveQueue srq;
        final QueuePair a;
        final QueuePair b;

        Pair(final Context ctx, final Arena arena, final boolean srqForB)
        {
            pd = ctx.allocPd();
            mr = pd.register(arena, arena.allocate(1 << 16, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            cq = ctx.createCq(256);
            srq = srqForB ? pd.createSrq(16, 1) : null;
            a = pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(16).maxRecvWr(8).build());
            b = pd.createQp(srqForB ? QpConfig.builder(QpType.RC, cq).srq(srq).build()
                : QpConfig.builder(QpType.RC, cq).maxSendWr(1).maxRecvWr(8).build());
            final PortAttributes port = ctx.queryPort(1);
            final AddressVector path = AddressVector.ib(1, port.lid(), 0);
            a.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(port.lid(), b.qpn(), 0,
                ctx.queryGid(1, 0)), path, 0);
            b.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(port.lid(), a.qpn(), 0,
                ctx.queryGid(1, 0)), path, 0);
        }
    }

    /** Requests the close from a thread of its own, as the rdma_cm thread would, and returns the handle. */
    private static QpClose requestFromAnotherThread(final CqPoller poller, final QueuePair qp)
        throws InterruptedException
    {
        final AtomicReference<QpClose> handle = new AtomicReference<>();
        final Thread cm = new Thread(() -> handle.set(poller.closeAsync(qp)), "cm");
        cm.start();
        cm.join();
        return handle.get();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theOwnerRefusesPostsAfterTheRequestAndDeliversEveryFlushBeforeTheDestroy() throws InterruptedException
    {
        try (Context ctx = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final Map<String, Long> before = new TreeMap<>(EmulatedDevice.live());
            final Pair p = new Pair(ctx, arena, false);
            final SendQueue sq = SendQueue.of(p.a, DoorbellMode.AUTO);
            final RecvQueue rq = RecvQueue.of(p.a);
            final CqPoller poller = CqPoller.of(p.cq).attach(sq).attach(rq);
            // 4 receives (never matched: flushed) and 3 WRITEs posted but not rung: the close rings them first
            for (int i = 0; i < 4; i++)
            {
                assertTrue(rq.post(100 + i, p.mr.address(), p.mr.lkey(), MSG));
            }
            rq.ring();
            for (int i = 0; i < 3; i++)
            {
                assertTrue(sq.rdmaWrite(i, p.mr.address(), p.mr.lkey(), MSG, p.mr.address() + 4096, p.mr.rkey(),
                    SendFlags.SIGNALED));
            }
            assertEquals(3, sq.pending());

            final QpClose close = requestFromAnotherThread(poller, p.a);
            // recorded only: nothing is done until the owner polls
            assertFalse(close.isDone());
            assertFalse(close.await(50, TimeUnit.MILLISECONDS), "done without a poll");
            assertFalse(p.a.isClosed());
            assertEquals(1, poller.closesPending());
            assertSame(p.a, close.queuePair());
            // posts on the owner thread throw, every form of them
            final IllegalStateException one = assertThrows(IllegalStateException.class,
                () -> sq.rdmaWrite(9, p.mr.address(), p.mr.lkey(), MSG, p.mr.address(), p.mr.rkey(), 0));
            assertTrue(one.getMessage().contains("the QP is closing"), one.getMessage());
            assertThrows(IllegalStateException.class,
                () -> sq.begin(9, Mlx5Opcode.MLX5_OPCODE_NOP, SendFlags.SIGNALED).post());
            assertThrows(IllegalStateException.class, () -> rq.post(9, p.mr.address(), p.mr.lkey(), MSG));
            assertThrows(IllegalStateException.class, () -> rq.begin(9).sge(p.mr.address(), p.mr.lkey(), MSG).post());

            final long flushesBefore = poller.flushes();
            final List<Long> ids = new ArrayList<>();
            final Completion wc = new Completion();
            int flushes = 0;
            for (int polls = 0; !close.isDone(); polls++)
            {
                assertTrue(polls < 1_000_000, "close not done");
                if (poller.poll(wc) == 1)
                {
                    assertFalse(close.isDone(), "a completion after the destroy: " + wc.wrId());
                    assertFalse(p.a.isClosed(), "QP destroyed before its completions were polled");
                    ids.add(wc.wrId());
                    if (wc.status() == WcStatus.WR_FLUSH_ERR)
                    {
                        flushes++;
                    }
                    else
                    {
                        assertTrue(wc.isSuccess() && wc.wrId() < 3, "wr_id " + wc.wrId() + ": " + wc.status());
                    }
                }
            }
            assertTrue(close.await(0, TimeUnit.SECONDS));
            assertNull(close.failure());
            assertTrue(p.a.isClosed());
            assertEquals(0, poller.closesPending());
            ids.sort(null);
            assertEquals(List.of(0L, 1L, 2L, 100L, 101L, 102L, 103L), ids, "every WR once, in order of wr_id");
            assertTrue(flushes >= 4, "the 4 receives at least are flushed: " + flushes);
            assertEquals(flushes, poller.flushes() - flushesBefore, "CqPoller.flushes()");
            assertEquals(0, poller.poll(wc));
            assertEquals(0, poller.orphanCqes());
            final IllegalStateException after = assertThrows(IllegalStateException.class,
                () -> sq.rdmaWrite(9, p.mr.address(), p.mr.lkey(), MSG, p.mr.address(), p.mr.rkey(), 0));
            assertTrue(after.getMessage().contains("the QP is closed"), after.getMessage());
            p.pd.close();
            p.cq.close();
            assertEquals(before, new TreeMap<>(EmulatedDevice.live()), "live emulated objects");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aQpOnAnSrqIsDestroyedOnlyAfterLastWqeReached() throws InterruptedException
    {
        try (Context ctx = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final AsyncEvents events = ctx.asyncEvents();
            final Pair p = new Pair(ctx, arena, true);
            final SrqRecvQueue srq = SrqRecvQueue.of(p.srq);
            final SendQueue sq = SendQueue.of(p.a, DoorbellMode.AUTO);
            final CqPoller poller = CqPoller.of(p.cq).attach(sq).attach(srq, p.b);
            for (int i = 0; i < 4; i++)
            {
                assertTrue(srq.post(200 + i, p.mr.address() + 4096L + 256L * i, p.mr.lkey(), 256));
            }
            srq.ring();
            assertTrue(sq.send(1, p.mr.address(), p.mr.lkey(), MSG, SendFlags.SIGNALED | SendFlags.RING));
            final QpClose close = requestFromAnotherThread(poller, p.b);
            final Completion wc = new Completion();
            final List<Long> ids = new ArrayList<>();
            // without LAST_WQE_REACHED the owner moves b to ERR and keeps it
            final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() < until)
            {
                if (poller.poll(wc) == 1)
                {
                    assertTrue(wc.isSuccess(), wc.status().toString());
                    ids.add(wc.wrId());
                }
            }
            assertFalse(close.isDone(), "destroyed before LAST_WQE_REACHED");
            assertFalse(p.b.isClosed());
            assertEquals(List.of(1L, 200L), ids.stream().sorted().toList(), "the SEND and its receive");
            // a poll while a close is pending (here waiting for the event) allocates nothing: after two warm-up
            // rounds, less than a byte per poll (the smallest object is 16 bytes), as DirectBehaviourTest measures
            final com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long tid = Thread.currentThread().threadId();
            for (int round = 0; round < 3; round++)
            {
                final long allocatedBefore = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 10_000; i++)
                {
                    assertEquals(0, poller.poll(wc));
                }
                final long allocated = mx.getThreadAllocatedBytes(tid) - allocatedBefore;
                if (round == 2)
                {
                    assertTrue(allocated < 10_000, "bytes allocated by 10,000 polls with a close pending: "
                        + allocated);
                }
            }
            assertEquals(1, poller.closesPending());
            // the application's async event loop reports the event to the handle
            final AsyncEvent event = events.await(WAIT);
            assertTrue(event != null, "no QP_LAST_WQE_REACHED within " + WAIT);
            assertEquals(AsyncEvent.Type.QP_LAST_WQE_REACHED, event.type());
            assertSame(p.b, event.queuePair());
            close.lastWqeReached();
            for (int polls = 0; !close.isDone(); polls++)
            {
                assertTrue(polls < 1_000_000, "close not done");
                assertEquals(0, poller.poll(wc), "no receive of b was in progress: nothing to flush");
            }
            assertTrue(close.await(0, TimeUnit.SECONDS));
            assertTrue(p.b.isClosed());
            assertEquals(3, srq.outstanding(), "the SRQ keeps its 3 unused WQEs");
            assertEquals(0, poller.orphanCqes());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void whenTheOwnerHasStoppedAnotherThreadTakesTheGroupOverAndPolls() throws InterruptedException
    {
        try (Context ctx = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final Pair p = new Pair(ctx, arena, false);
            final SendQueue sq = SendQueue.of(p.a, DoorbellMode.AUTO);
            final RecvQueue rq = RecvQueue.of(p.a);
            final CqPoller poller = CqPoller.of(p.cq);
            final Thread owner = new Thread(() ->
            {
                poller.attach(sq).attach(rq);
                rq.post(100, p.mr.address(), p.mr.lkey(), MSG);
                rq.ring();
                sq.rdmaWrite(1, p.mr.address(), p.mr.lkey(), MSG, p.mr.address() + 4096, p.mr.rkey(),
                    SendFlags.SIGNALED | SendFlags.RING);
            }, "owner");
            owner.start();
            owner.join();   // the owner is gone, and join() orders its last use before what follows
            final QpClose close = poller.closeAsync(p.a);
            assertFalse(close.await(50, TimeUnit.MILLISECONDS), "nobody polls: nothing happens");
            poller.claim();
            sq.claim();
            final Completion wc = new Completion();
            final List<Long> ids = new ArrayList<>();
            for (int polls = 0; !close.isDone(); polls++)
            {
                assertTrue(polls < 1_000_000, "close not done");
                if (poller.poll(wc) == 1)
                {
                    ids.add(wc.wrId());
                }
            }
            assertTrue(close.await(0, TimeUnit.SECONDS));
            assertEquals(List.of(1L, 100L), ids.stream().sorted().toList());
            assertTrue(p.a.isClosed());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aQpOfAnotherCqIsRefusedAndAClosedOneIsDoneAtOnce() throws InterruptedException
    {
        try (Context ctx = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final Pair p = new Pair(ctx, arena, false);
            final CqPoller other = CqPoller.of(ctx.createCq(16));
            final IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
                () -> other.closeAsync(p.a));
            assertTrue(wrong.getMessage().contains("has neither its send nor its receive CQ"), wrong.getMessage());
            assertFalse(p.a.isClosed());
            p.a.close();
            final QpClose close = CqPoller.of(p.cq).closeAsync(p.a);
            assertTrue(close.isDone());
            assertTrue(close.await(0, TimeUnit.SECONDS));
        }
    }
}
