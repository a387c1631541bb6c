// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.AsyncEvent;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.verbs.XrcDomain;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CqPoller#closeAsync(SrqRecvQueue)}: 50 cycles, each its own test case with its own timeout, of an XRC SRQ
 * torn down while a TGT QP receives into it. In each cycle the owner thread keeps the new SRQ full and 256 KiB SENDs
 * (four wire packets each) in flight from an INI QP; this thread requests the close of the TGT QP and then at once
 * that of the SRQ, reports the TGT QP's {@code QP_LAST_WQE_REACHED}, then closes the INI QP. Each cycle must end with:
 * every SRQ WQE posted completed exactly once (by wr_id), as SUCCESS or WR_FLUSH_ERR with the TGT QP's number, or as
 * WR_FLUSH_ERR with QP number 0 (left posted at the destroy: {@link SrqClose}); the SRQ destroyed only after the TGT
 * QP; posts after the request refused; the flushes seen equal to {@link CqPoller#flushes()}; no completion after the
 * closes were done; no orphan or unexpected CQE; the emulated kernel's live objects back at their count before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class XrcSrqCloseTest
{
    private static final int CYCLES = 50;
    private static final int IN_FLIGHT = 4;
    private static final int MSG = 256 * 1024;
    private static final int SRQ_WR = 16;

    private Context ctx;
    private ProtectionDomain pd;
    private Arena arena;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private XrcDomain xrcd;
    private CqPoller poller;
    private PortAttributes port;
    private Thread owner;
    private final BlockingQueue<Cycle> handoff = new ArrayBlockingQueue<>(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    private boolean broken;

    /** One SRQ and its INI/TGT pair: created by the test thread, posted and polled by the owner. */
    private static final class Cycle
    {
        final int n;
        final SharedReceiveQueue srq;
        final SrqRecvQueue rq;
        final QueuePair tgt;
        final int tgtQpn;
        final QueuePair ini;
        final int iniQpn;
        final SendQueue sq;
        volatile QpClose closeTgt;
        volatile SrqClose closeSrq;
        volatile QpClose closeIni;
        /** Owner-written, read after {@link #report}. */
        long posted;
        long received;
        long flushedByTgt;
        long flushedAtDestroy;
        long sends;
        long sendsDone;
        long refused;
        long flushesSeen;
        long pollerFlushes;
        boolean srqBeforeTgt;
        volatile long sendsOk;
        volatile boolean started;
        final BlockingQueue<String> report = new ArrayBlockingQueue<>(1);

        Cycle(final int n, final SharedReceiveQueue srq, final QueuePair tgt, final QueuePair ini)
        {
            this.n = n;
            this.srq = srq;
            this.rq = SrqRecvQueue.of(srq);
            this.tgt = tgt;
            this.tgtQpn = tgt.qpn();
            this.ini = ini;
            this.iniQpn = ini.qpn();
            this.sq = SendQueue.of(ini, DoorbellMode.AUTO).xrcSrqn(srq.srqNum());
        }
    }

    @BeforeAll
    void open()
    {
        ctx = Context.open("mlx5_0");
        pd = ctx.allocPd();
        arena = Arena.ofShared();
        final MemorySegment buf = arena.allocate((long) (1 + SRQ_WR) * MSG, 4096);
        mr = pd.register(arena, buf, Access.LOCAL_WRITE);
        cq = ctx.createCq(256);
        port = ctx.queryPort(1);
        xrcd = ctx.openXrcDomain();
        poller = CqPoller.of(cq);
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
        }
        finally
        {
            ctx.close();
            arena.close();
        }
    }

    @Test
    void onlyXrcSrqsOfThisPollersCqAreClosedThroughIt()
    {
        final SrqRecvQueue plain = SrqRecvQueue.of(pd.createSrq(4, 1));
        final IllegalArgumentException notXrc = assertThrows(IllegalArgumentException.class,
            () -> poller.closeAsync(plain));
        assertTrue(notXrc.getMessage().contains("not an XRC SRQ"), notXrc.getMessage());
        final SrqRecvQueue other = SrqRecvQueue.of(pd.createXrcSrq(xrcd, ctx.createCq(16), 4, 1));
        final IllegalArgumentException otherCq = assertThrows(IllegalArgumentException.class,
            () -> poller.closeAsync(other));
        assertTrue(otherCq.getMessage().contains("not on this poller's CQ"), otherCq.getMessage());
        other.srq().cq().close();
        plain.srq().close();
    }

    @RepeatedTest(CYCLES)
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closeTheSrqWhileATgtQpReceivesIntoIt(final RepetitionInfo info) throws InterruptedException
    {
        assertNull(failure.get(), () -> "owner failed in an earlier cycle: " + failure.get());
        assertFalse(broken, "an earlier cycle failed: its connection is still the owner's");
        broken = true;
        cycle(info.getCurrentRepetition());
        broken = false;
    }

    private void cycle(final int n) throws InterruptedException
    {
        final Map<String, Long> before = new TreeMap<>(EmulatedDevice.live());
        final SharedReceiveQueue srq = pd.createXrcSrq(xrcd, cq, SRQ_WR, 1);
        final QueuePair tgt = xrcd.createTgtQp();
        final QueuePair ini = pd.createQp(QpConfig.builder(QpType.XRC_SEND, cq).maxSendWr(2 * IN_FLIGHT)
            .maxRecvWr(0).maxRecvSge(0).build());
        final AddressVector path = AddressVector.ib(1, port.lid(), 0);
        ini.toInit(InitAttributes.connected(1, 0));
        ini.toRtr(RtrAttributes.of(port.activeMtu(), PeerInfo.of(port.lid(), tgt.qpn(), 0x700, ctx.queryGid(1, 0)),
            path));
        ini.toRts(new RtsAttributes(0x100, 8, 2, 7, 1));
        tgt.connect(1, 0, 0, port.activeMtu(), PeerInfo.of(port.lid(), ini.qpn(), 0x100, ctx.queryGid(1, 0)), path,
            0x700);
        final Cycle cycle = new Cycle(n, srq, tgt, ini);
        assertTrue(handoff.offer(cycle, 30, TimeUnit.SECONDS), "owner takes the connection");
        while ((!cycle.started || cycle.sendsOk < 1 + n % 4) && failure.get() == null)
        {
            Thread.onSpinWait();
        }
        assertNull(failure.get(), () -> "owner failed: " + failure.get());
        // the disconnect handler's order: the TGT QP, then the SRQ at once; the SRQ's close waits for the TGT QP's
        cycle.closeTgt = poller.closeAsync(tgt);
        cycle.closeSrq = poller.closeAsync(cycle.rq);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        final AsyncEvent ev = new AsyncEvent();
        boolean lastWqe = false;
        while (!lastWqe && System.nanoTime() - deadline < 0)
        {
            if (ctx.asyncEvents().await(ev, Duration.ofMillis(100)))
            {
                lastWqe = ev.type() == AsyncEvent.Type.QP_LAST_WQE_REACHED && ev.qpn() == cycle.tgtQpn;
            }
        }
        assertTrue(lastWqe, "QP_LAST_WQE_REACHED of the TGT QP");
        assertFalse(srq.isClosed(), "the SRQ outlives the TGT QP's close");
        cycle.closeTgt.lastWqeReached();
        assertTrue(cycle.closeTgt.await(30, TimeUnit.SECONDS), "close of the TGT QP done");
        assertTrue(cycle.closeSrq.await(30, TimeUnit.SECONDS), "close of the SRQ done");
        assertTrue(srq.isClosed(), "SRQ destroyed");
        cycle.closeIni = poller.closeAsync(ini);
        assertTrue(cycle.closeIni.await(30, TimeUnit.SECONDS), "close of the INI QP done");
        final String report = cycle.report.poll(30, TimeUnit.SECONDS);
        assertNull(failure.get(), () -> "owner failed: " + failure.get());
        assertNotNull(report, "owner reported the cycle");
        assertEquals("ok", report);
        assertFalse(cycle.srqBeforeTgt, "the SRQ was destroyed before the TGT QP");
        assertEquals(cycle.posted, cycle.received + cycle.flushedByTgt + cycle.flushedAtDestroy,
            "every SRQ WQE completed once");
        assertEquals(0, cycle.rq.outstanding(), "nothing outstanding on the closed SRQ");
        assertTrue(cycle.flushedByTgt <= 1, "at most the message in progress flushed by the TGT QP's ERR");
        assertTrue(cycle.flushedAtDestroy >= SRQ_WR - 1 - IN_FLIGHT - 1, "the WQEs no message took come back at "
            + "the destroy: " + cycle.flushedAtDestroy);
        assertTrue(cycle.refused >= 1, "a post after the request was refused");
        assertEquals(cycle.sends, cycle.sendsDone, "every SEND completed once");
        assertEquals(cycle.flushesSeen, cycle.pollerFlushes, "flush completions seen vs CqPoller.flushes()");
        assertEquals(before, new TreeMap<>(EmulatedDevice.live()), "live emulated objects after cycle " + n);
        if (n % 10 == 0)
        {
            System.out.printf("XrcSrqCloseTest cycle %d: %d SRQ WQEs: %d received, %d flushed by the TGT QP, %d "
                + "flushed at the destroy; %d SENDs%n", n, cycle.posted, cycle.received, cycle.flushedByTgt,
                cycle.flushedAtDestroy, cycle.sends);
        }
    }

    /** The owner: posts, polls, checks every completion by wr_id, reports the cycle. */
    private void ownerLoop()
    {
        try
        {
            final Completion wc = new Completion();
            Cycle cur = null;
            BitSet seen = null;
            BitSet sendsSeen = null;
            long flushesAtStart = 0;
            long inFlight = 0;
            boolean iniFailed = false;
            while (!stop || cur != null)
            {
                if (cur == null)
                {
                    cur = handoff.poll(1, TimeUnit.MILLISECONDS);
                    if (cur == null)
                    {
                        continue;
                    }
                    poller.attach(cur.rq).attach(cur.sq);
                    seen = new BitSet();
                    sendsSeen = new BitSet();
                    flushesAtStart = poller.flushes();
                    inFlight = 0;
                    iniFailed = false;
                    fill(cur);
                    cur.started = true;
                }
                if (!iniFailed && inFlight < IN_FLIGHT)
                {
                    try
                    {
                        if (cur.sq.send(cur.sends, mr.address(), mr.lkey(), MSG, SendFlags.SIGNALED | SendFlags.RING))
                        {
                            cur.sends++;
                            inFlight++;
                        }
                    }
                    catch (final IllegalStateException closing)
                    {
                        // the INI QP's close was requested before its SENDs failed: it takes no more
                        assertTrue(closing.getMessage().contains("the QP is closing"), closing.getMessage());
                        iniFailed = true;
                    }
                }
                while (poller.poll(wc) == 1)
                {
                    final long id = wc.wrId();
                    if (wc.qpn() == cur.iniQpn)
                    {
                        if (id >= cur.sends || sendsSeen.get((int) id))
                        {
                            throw new AssertionError("cycle " + cur.n + ": SEND completion " + id + " twice or "
                                + "never posted: " + wc);
                        }
                        sendsSeen.set((int) id);
                        cur.sendsDone++;
                        inFlight--;
                        if (wc.isSuccess())
                        {
                            cur.sendsOk++;
                        }
                        else
                        {
                            iniFailed = true;
                            if (wc.status() == WcStatus.WR_FLUSH_ERR)
                            {
                                cur.flushesSeen++;
                            }
                        }
                        continue;
                    }
                    if (id < 0x1000 || id - 0x1000 >= cur.posted || seen.get((int) (id - 0x1000)))
                    {
                        throw new AssertionError("cycle " + cur.n + ": SRQ completion 0x" + Long.toHexString(id)
                            + " twice or never posted: " + wc);
                    }
                    seen.set((int) (id - 0x1000));
                    if (wc.isSuccess())
                    {
                        assertEquals(cur.tgtQpn, wc.qpn(), wc::toString);
                        assertEquals(MSG, wc.byteLen(), wc::toString);
                        cur.received++;
                        if (cur.refused == 0)
                        {
                            fill(cur);
                        }
                    }
                    else if (wc.status() == WcStatus.WR_FLUSH_ERR && wc.qpn() == cur.tgtQpn)
                    {
                        cur.flushedByTgt++;
                        cur.flushesSeen++;
                    }
                    else if (wc.status() == WcStatus.WR_FLUSH_ERR && wc.qpn() == 0)
                    {
                        // left posted at the destroy: only after the TGT QP is gone
                        cur.srqBeforeTgt |= !cur.tgt.isClosed();
                        assertTrue(cur.srq.isClosed(), "a flush of the SRQ's own before its destroy");
                        assertEquals(0, wc.vendorSyndrome(), wc::toString);
                        cur.flushedAtDestroy++;
                        cur.flushesSeen++;
                    }
                    else
                    {
                        throw new AssertionError("cycle " + cur.n + ": SRQ WQE ended " + wc);
                    }
                }
                if (cur.closeSrq != null && cur.refused == 0)
                {
                    // the request is visible to this thread (closeAsync marked the queue before it returned)
                    final SrqRecvQueue closing = cur.rq;
                    final IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> closing.post(1, mr.address(), mr.lkey(), 64));
                    assertTrue(refused.getMessage().contains("the SRQ is closing"), refused.getMessage());
                    cur.refused++;
                }
                final QpClose ct = cur.closeTgt;
                final SrqClose cs = cur.closeSrq;
                final QpClose ci = cur.closeIni;
                if (ct != null && cs != null && ci != null && ct.isDone() && cs.isDone() && ci.isDone())
                {
                    if (poller.poll(wc) != 0)
                    {
                        throw new AssertionError("cycle " + cur.n + ": a completion after the closes were done: "
                            + wc);
                    }
                    cur.pollerFlushes = poller.flushes() - flushesAtStart;
                    final Cycle done = cur;
                    cur = null;
                    done.report.add("ok");
                }
                else
                {
                    Thread.yield();
                }
            }
        }
        catch (final Throwable ex)
        {
            failure.compareAndSet(null, ex);
        }
    }

    /**
     * Posts the SRQ full (wr_ids from 0x1000 on; the data is not checked here, so buffers may be shared); a post
     * refused because the close was requested is counted.
     */
    private void fill(final Cycle c)
    {
        try
        {
            while (c.rq.outstanding() < SRQ_WR - 1)
            {
                final long b = mr.address() + MSG + (c.posted % SRQ_WR) * MSG;
                if (!c.rq.post(0x1000 + c.posted, b, mr.lkey(), MSG))
                {
                    break;
                }
                c.posted++;
            }
            c.rq.ring();
        }
        catch (final IllegalStateException closing)
        {
            assertTrue(closing.getMessage().contains("the SRQ is closing"), closing.getMessage());
            c.refused++;
        }
    }
}
