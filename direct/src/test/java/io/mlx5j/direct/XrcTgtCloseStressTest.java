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
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayDeque;
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
 * {@link CqPoller#closeAsync} of XRC TGT QPs while their INI peers send: 200 cycles, each its own test case with its
 * own timeout. One XRC SRQ (one CQ, one poller, one owner thread) lives through all cycles; each cycle connects a new
 * INI QP to a new TGT QP of the domain. The owner keeps the SRQ full and four 256 KiB SENDs (several packets each, so
 * the close often finds one half received, its SRQ WQE held by the TGT QP) in flight; this thread requests the TGT
 * QP's close, reads its {@code QP_LAST_WQE_REACHED} and reports it to the handle, then closes the INI QP the same way.
 * Each cycle must end with:
 * <ul>
 * <li>every SEND completed exactly once on the INI side: SUCCESS, then at most one RETRY_EXC_ERR (the TGT QP in ERR
 *     or gone answers nothing, as a ConnectX's does), then WR_FLUSH_ERR;</li>
 * <li>every SRQ WQE completed at most once, with SUCCESS (the TGT QP's number, the whole message byte for byte, each
 *     SEND received at most once) or WR_FLUSH_ERR (the TGT QP's number: the message the close cut in half);</li>
 * <li>the SRQ intact: the WQEs still posted are exactly the device's, which a second, long-lived INI/TGT pair then
 *     consumes one SEND each, all SUCCESS (a WQE lost with the TGT QP would leave the last SEND without one);</li>
 * <li>the flushes seen equal to {@link CqPoller#flushes()}, no orphan or unexpected CQE, and the emulated kernel's
 *     live objects back at their count before the cycle.</li>
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class XrcTgtCloseStressTest
{
    private static final int CYCLES = 200;
    private static final int IN_FLIGHT = 4;
    /** Four packets per message: the emulated wire carries up to 64 KiB per packet (ENG_CHUNK, eng_internal.h). */
    private static final int MSG = 256 * 1024;
    private static final int SRQ_WR = 32;
    /** SRQ receive buffers: more than the SRQ holds, so a free one is always at hand. */
    private static final int BUFFERS = 2 * SRQ_WR;
    private static final int SEND = 0;
    private static final int RECV = 1;
    private static final int CHECK = 2;

    private Context ctx;
    private ProtectionDomain pd;
    private Arena arena;
    private MemoryRegion mr;
    private long sendBase;
    private long recvBase;
    private CompletionQueue cq;
    private XrcDomain xrcd;
    private SharedReceiveQueue srq;
    private SrqRecvQueue rq;
    private CqPoller poller;
    private PortAttributes port;
    private QueuePair survivorIni;
    private QueuePair survivorTgt;
    private SendQueue survivorSq;
    private Map<String, Long> baseline;
    private Thread owner;
    private final BlockingQueue<Cycle> handoff = new ArrayBlockingQueue<>(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    /** A cycle failed on this thread: the owner may still hold its connection, so the next cycles fail at once. */
    private boolean broken;
    /** SRQ WQEs flushed over all cycles: each a message the close cut in half. */
    private long flushedRecvsTotal;
    /** Owner thread: SRQ receive buffers free, and each posted SRQ WQE's buffer by its sequence number. */
    private final ArrayDeque<Integer> freeBuffers = new ArrayDeque<>();
    private long srqPosted;
    private final BitSet srqDone = new BitSet();

    /** One INI/TGT connection: created and closed by the test thread, posted and polled by the owner. */
    private static final class Cycle
    {
        final int n;
        final QueuePair ini;
        final QueuePair tgt;
        /** Read once: a destroyed QP's number is not asked of it. */
        final int tgtQpn;
        final SendQueue sq;
        volatile QpClose closeTgt;
        volatile QpClose closeIni;
        /** Owner-written, read after {@link #report}. */
        long posted;
        long ok;
        long retryExc;
        long flushedSends;
        long received;
        long flushedRecvs;
        long checked;
        long pollerFlushes;
        long flushesSeen;
        volatile long sendsOk;
        /** The INI QP saw its error completion: the owner posts no more. */
        volatile boolean iniFailed;
        volatile boolean started;
        final BlockingQueue<String> report = new ArrayBlockingQueue<>(1);

        Cycle(final int n, final QueuePair ini, final QueuePair tgt)
        {
            this.n = n;
            this.ini = ini;
            this.tgt = tgt;
            this.tgtQpn = tgt.qpn();
            this.sq = SendQueue.of(ini, DoorbellMode.AUTO);
        }
    }

    @BeforeAll
    void open()
    {
        ctx = Context.open("mlx5_0");
        pd = ctx.allocPd();
        arena = Arena.ofShared();
        final MemorySegment buf = arena.allocate((long) (IN_FLIGHT + BUFFERS) * MSG, 4096);
        mr = pd.register(arena, buf, Access.LOCAL_WRITE);
        sendBase = mr.address();
        recvBase = mr.address() + (long) IN_FLIGHT * MSG;
        for (int i = 0; i < IN_FLIGHT * MSG; i++)
        {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
        cq = ctx.createCq(256);
        port = ctx.queryPort(1);
        xrcd = ctx.openXrcDomain();
        srq = pd.createXrcSrq(xrcd, cq, SRQ_WR, 1);
        rq = SrqRecvQueue.of(srq);
        // the long-lived pair that shows the SRQ's WQEs intact after each TGT QP's close; a short RNR retry, so a
        // WQE missing from the SRQ fails its SEND instead of waiting
        survivorTgt = xrcd.createTgtQp();
        survivorIni = pd.createQp(QpConfig.builder(QpType.XRC_SEND, cq).maxSendWr(SRQ_WR).maxRecvWr(0)
            .maxRecvSge(0).build());
        connect(survivorIni, survivorTgt, new RtsAttributes(0x500, 8, 2, 1, 1));
        survivorSq = SendQueue.of(survivorIni, DoorbellMode.AUTO).xrcSrqn(srq.srqNum());
        poller = CqPoller.of(cq).attach(rq).attach(survivorSq);
        for (int i = 0; i < BUFFERS; i++)
        {
            freeBuffers.add(i);
        }
        baseline = new TreeMap<>(EmulatedDevice.live());
        owner = new Thread(this::ownerLoop, "owner");
        owner.start();
    }

    /** INI to RTS with {@code rts}'s retries, TGT to RTS; both on port 1 of this context. */
    private void connect(final QueuePair ini, final QueuePair tgt, final RtsAttributes rts)
    {
        final AddressVector path = AddressVector.ib(1, port.lid(), 0);
        final int mtu = port.activeMtu();
        ini.toInit(InitAttributes.connected(1, 0));
        ini.toRtr(RtrAttributes.of(mtu, PeerInfo.of(port.lid(), tgt.qpn(), 0x700, ctx.queryGid(1, 0)), path));
        ini.toRts(rts);
        tgt.connect(1, 0, 0, mtu, PeerInfo.of(port.lid(), ini.qpn(), rts.sqPsn(),
            ctx.queryGid(1, 0)), path, 0x700);
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

    @RepeatedTest(CYCLES)
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closeTheTgtQpWhileItsPeerSends(final RepetitionInfo info) throws InterruptedException
    {
        assertNull(failure.get(), () -> "owner failed in an earlier cycle: " + failure.get());
        assertFalse(broken, "an earlier cycle failed: its connection is still the owner's");
        broken = true;
        cycle(info);
        broken = false;
    }

    private void cycle(final RepetitionInfo info) throws InterruptedException
    {
        final int n = info.getCurrentRepetition();
        final QueuePair tgt = xrcd.createTgtQp();
        final QueuePair ini = pd.createQp(QpConfig.builder(QpType.XRC_SEND, cq).maxSendWr(2 * IN_FLIGHT)
            .maxRecvWr(0).maxRecvSge(0).build());
        // a 20 ms ACK timeout (the emulator's least) and 2 retries: the SENDs to a TGT QP in ERR end soon
        connect(ini, tgt, new RtsAttributes(0x100, 8, 2, 7, 1));
        final Cycle cycle = new Cycle(n, ini, tgt);
        assertTrue(handoff.offer(cycle, 30, TimeUnit.SECONDS), "owner takes the connection");
        // at least one SEND arrived (the TGT QP serves the SRQ), then 0 to 4 more, then the close
        while ((!cycle.started || cycle.sendsOk < 1 + n % 5) && failure.get() == null)
        {
            Thread.onSpinWait();
        }
        assertNull(failure.get(), () -> "owner failed: " + failure.get());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        cycle.closeTgt = poller.closeAsync(tgt);
        // this thread reads the context's events, as the thread of an application that handles them would
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
        assertFalse(tgt.isClosed(), "the TGT QP is not destroyed before its LAST_WQE_REACHED is reported");
        cycle.closeTgt.lastWqeReached();
        assertTrue(cycle.closeTgt.await(30, TimeUnit.SECONDS), "close of the TGT QP done");
        assertTrue(tgt.isClosed(), "TGT QP destroyed");
        // its peer then ends in RETRY_EXC_ERR: the INI QP is in ERR, and closes like any QP
        while (!cycle.iniFailed && failure.get() == null && System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
        }
        assertTrue(cycle.iniFailed, "the INI QP's SENDs ended in an error");
        cycle.closeIni = poller.closeAsync(ini);
        assertTrue(cycle.closeIni.await(30, TimeUnit.SECONDS), "close of the INI QP done");
        final String report = cycle.report.poll(30, TimeUnit.SECONDS);
        assertNull(failure.get(), () -> "owner failed: " + failure.get());
        assertNotNull(report, "owner reported the cycle");
        assertEquals("ok", report);
        assertEquals(cycle.posted, cycle.ok + cycle.retryExc + cycle.flushedSends, "every SEND completed once");
        assertEquals(1, cycle.retryExc, "one SEND ended in RETRY_EXC_ERR, the others after it flushed");
        assertTrue(cycle.flushedRecvs <= 1, "at most the one message in progress flushed: " + cycle.flushedRecvs);
        assertTrue(cycle.received <= cycle.ok + cycle.retryExc, "no SEND received that did not complete or time "
            + "out: " + cycle.received + " vs " + cycle.ok + " + " + cycle.retryExc);
        assertTrue(cycle.received >= cycle.ok, "every SEND acknowledged was received: " + cycle.received);
        assertEquals(cycle.flushesSeen, cycle.pollerFlushes, "flush completions seen vs CqPoller.flushes()");
        assertEquals(baseline, new TreeMap<>(EmulatedDevice.live()), "live emulated objects after cycle " + n);
        flushedRecvsTotal += cycle.flushedRecvs;
        if (n % 50 == 0)
        {
            System.out.printf("XrcTgtCloseStressTest cycle %d: %d SENDs (%d ok, %d RETRY_EXC_ERR, %d flushed), "
                + "%d received, %d SRQ WQEs flushed (%d in all cycles so far), %d checked by the long-lived TGT "
                + "QP%n", n, cycle.posted, cycle.ok, cycle.retryExc, cycle.flushedSends, cycle.received,
                cycle.flushedRecvs, flushedRecvsTotal, cycle.checked);
        }
    }

    /** The owner: posts, polls, checks every completion, then proves the SRQ intact and reports the cycle. */
    private void ownerLoop()
    {
        try
        {
            final Completion wc = new Completion();
            Cycle cur = null;
            long flushesAtStart = 0;
            long inFlight = 0;
            BitSet sendsSeen = null;
            BitSet sendsReceived = null;
            while (!stop || cur != null)
            {
                if (cur == null)
                {
                    cur = handoff.poll(1, TimeUnit.MILLISECONDS);
                    if (cur == null)
                    {
                        continue;
                    }
                    poller.attach(cur.sq);
                    cur.sq.xrcSrqn(srq.srqNum());
                    fillSrq(cur.n);
                    flushesAtStart = poller.flushes();
                    inFlight = 0;
                    sendsSeen = new BitSet();
                    sendsReceived = new BitSet();
                    cur.started = true;
                }
                if (!cur.iniFailed && inFlight < IN_FLIGHT)
                {
                    final long seq = cur.posted;
                    final long slot = sendBase + (seq % IN_FLIGHT) * MSG;
                    // the message names its cycle and SEND in its first and last 8 bytes
                    final MemorySegment m = mr.memory().asSlice(slot - mr.address(), MSG);
                    m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, id(SEND, cur.n, 0, seq));
                    m.set(ValueLayout.JAVA_LONG_UNALIGNED, MSG - 8, id(SEND, cur.n, 0, seq));
                    if (cur.sq.send(id(SEND, cur.n, 0, seq), slot, mr.lkey(), MSG,
                        SendFlags.SIGNALED | SendFlags.RING))
                    {
                        cur.posted++;
                        inFlight++;
                    }
                }
                while (poller.poll(wc) == 1)
                {
                    final long id = wc.wrId();
                    final int kind = (int) (id >>> 56);
                    if (kind == SEND)
                    {
                        final long seq = id & 0xff_ffff_ffffL;
                        if ((int) (id >>> 40 & 0xffff) != cur.n || seq >= cur.posted || sendsSeen.get((int) seq))
                        {
                            throw new AssertionError("cycle " + cur.n + ": SEND completion 0x" + Long.toHexString(id)
                                + " twice or never posted (" + wc + ")");
                        }
                        sendsSeen.set((int) seq);
                        inFlight--;
                        assertEquals(cur.ini.qpn(), wc.qpn(), wc::toString);
                        if (wc.isSuccess())
                        {
                            assertEquals(0, cur.retryExc + cur.flushedSends, "a SEND succeeded after an error");
                            cur.ok++;
                            cur.sendsOk++;
                        }
                        else if (wc.status() == WcStatus.RETRY_EXC_ERR)
                        {
                            assertEquals(0, cur.retryExc + cur.flushedSends, "RETRY_EXC_ERR after another error");
                            cur.retryExc++;
                            cur.iniFailed = true;
                        }
                        else if (wc.status() == WcStatus.WR_FLUSH_ERR)
                        {
                            assertEquals(1, cur.retryExc, "a flush before the RETRY_EXC_ERR");
                            cur.flushedSends++;
                            cur.flushesSeen++;
                        }
                        else
                        {
                            throw new AssertionError("cycle " + cur.n + ": SEND ended " + wc);
                        }
                    }
                    else if (kind == RECV)
                    {
                        checkRecv(cur, wc, sendsReceived);
                        fillSrq(cur.n);
                    }
                    else
                    {
                        throw new AssertionError("cycle " + cur.n + ": completion 0x" + Long.toHexString(id)
                            + " outside the cycle's traffic: " + wc);
                    }
                }
                final QpClose ct = cur.closeTgt;
                final QpClose ci = cur.closeIni;
                if (ct != null && ci != null && ct.isDone() && ci.isDone())
                {
                    if (poller.poll(wc) != 0)
                    {
                        throw new AssertionError("cycle " + cur.n + ": a completion after the closes were done: 0x"
                            + Long.toHexString(wc.wrId()) + " " + wc);
                    }
                    cur.pollerFlushes = poller.flushes() - flushesAtStart;
                    cur.checked = srqIntact(cur, wc);
                    fillSrq(cur.n);
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

    /** An SRQ completion of the cycle's TGT QP: SUCCESS with a whole message received once, or WR_FLUSH_ERR. */
    private void checkRecv(final Cycle cur, final Completion wc, final BitSet sendsReceived)
    {
        final long id = wc.wrId();
        final long seq = id & 0xff_ffff_ffffL;
        final int buffer = (int) (id >>> 40 & 0xffff);
        if (seq >= srqPosted || srqDone.get((int) seq))
        {
            throw new AssertionError("cycle " + cur.n + ": SRQ completion 0x" + Long.toHexString(id)
                + " twice or never posted (" + wc + ")");
        }
        srqDone.set((int) seq);
        freeBuffers.add(buffer);
        assertEquals(cur.tgtQpn, wc.qpn(), () -> "the TGT QP's number: " + wc);
        if (wc.status() == WcStatus.WR_FLUSH_ERR)
        {
            cur.flushedRecvs++;
            cur.flushesSeen++;
            return;
        }
        assertTrue(wc.isSuccess(), wc::toString);
        assertEquals(MSG, wc.byteLen(), wc::toString);
        final MemorySegment got = mr.memory().asSlice(recvBase - mr.address() + (long) buffer * MSG, MSG);
        final long head = got.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        final long sendSeq = head & 0xff_ffff_ffffL;
        if ((int) (head >>> 56) != SEND || (int) (head >>> 40 & 0xffff) != cur.n || sendSeq >= cur.posted
            || sendsReceived.get((int) sendSeq) || got.get(ValueLayout.JAVA_LONG_UNALIGNED, MSG - 8) != head)
        {
            throw new AssertionError("cycle " + cur.n + ": SRQ WQE 0x" + Long.toHexString(id) + " holds message 0x"
                + Long.toHexString(head) + ", not a SEND of this cycle received once");
        }
        sendsReceived.set((int) sendSeq);
        final MemorySegment sent = mr.memory().asSlice((sendSeq % IN_FLIGHT) * MSG, MSG);
        final long diff = got.asSlice(8, MSG - 16).mismatch(sent.asSlice(8, MSG - 16));
        assertEquals(-1, diff, () -> "received bytes differ from the SEND's at offset " + (diff + 8));
        cur.received++;
    }

    /**
     * The SRQ's WQEs still posted must be exactly the device's: the long-lived INI QP sends that many SENDs to the
     * long-lived TGT QP, each must succeed and take one of them, and the SRQ is then empty.
     *
     * @return how many WQEs were checked
     */
    private long srqIntact(final Cycle cur, final Completion wc)
    {
        final int left = rq.outstanding();
        int sent = 0;
        int sendsDone = 0;
        int recvsDone = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (sendsDone < left || recvsDone < left)
        {
            if (sent < left && sent - sendsDone < SRQ_WR / 2)
            {
                assertTrue(survivorSq.send(id(CHECK, cur.n, 0, sent), sendBase, mr.lkey(), 64,
                    SendFlags.SIGNALED | SendFlags.RING), "survivor send ring");
                sent++;
            }
            if (poller.poll(wc) == 1)
            {
                final long id = wc.wrId();
                if ((int) (id >>> 56) == CHECK)
                {
                    assertTrue(wc.isSuccess(), () -> "cycle " + cur.n + ": a SEND to the SRQ's remaining WQEs "
                        + "ended " + wc + " (a WQE the closed TGT QP took is missing from the SRQ)");
                    sendsDone++;
                }
                else
                {
                    final long seq = id & 0xff_ffff_ffffL;
                    assertEquals(RECV, (int) (id >>> 56), wc::toString);
                    assertTrue(wc.isSuccess(), wc::toString);
                    assertEquals(survivorTgt.qpn(), wc.qpn(), wc::toString);
                    assertEquals(64, wc.byteLen(), wc::toString);
                    assertFalse(srqDone.get((int) seq), () -> "SRQ WQE completed twice: " + wc);
                    srqDone.set((int) seq);
                    freeBuffers.add((int) (id >>> 40 & 0xffff));
                    recvsDone++;
                }
            }
            else if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("cycle " + cur.n + ": " + left + " SRQ WQEs left, " + sendsDone
                    + " SENDs and " + recvsDone + " receives of them completed");
            }
        }
        assertEquals(0, rq.outstanding(), "SRQ WQEs outstanding after the check");
        return left;
    }

    /** Posts SRQ WQEs until the SRQ is full (the SRQ keeps one WQE out of use, as libmlx5's). */
    private void fillSrq(final int n)
    {
        boolean posted = false;
        while (!freeBuffers.isEmpty() && rq.outstanding() < SRQ_WR - 1)
        {
            final int b = freeBuffers.peek();
            if (!rq.post(id(RECV, n, b, srqPosted), recvBase + (long) b * MSG, mr.lkey(), MSG))
            {
                break;
            }
            freeBuffers.poll();
            srqPosted++;
            posted = true;
        }
        if (posted)
        {
            rq.ring();
        }
    }

    /** Kind in the top byte, then 16 bits of cycle or SRQ buffer, then a 40-bit sequence number. */
    private static long id(final int kind, final int cycle, final int buffer, final long seq)
    {
        return (long) kind << 56 | (long) ((kind == RECV ? buffer : cycle) & 0xffff) << 40 | seq;
    }
}
