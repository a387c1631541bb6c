// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.FdPoll;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Asynchronous events on the emulated device, read through {@link AsyncEvents}: exact types, the numbers and the live
 * mlx5j objects they name. The emulator raises them with Linux's rules (emulator/README.md, "Asynchronous events");
 * each test is bounded, so a destroy that waits for an acknowledgement fails it instead of hanging the build.
 */
class AsyncEventsTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int IBV_PORT_DOWN = 1;
    private static final int IBV_PORT_ACTIVE = 4;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void portDownAndUpFromAnotherProcessReachThePoller() throws Exception
    {
        try (Context context = Context.open("mlx5_0"))
        {
            final AsyncEvents events = context.asyncEvents();
            assertSame(events, context.asyncEvents());
            final AsyncEvent event = new AsyncEvent();
            assertFalse(events.poll(event), "an event before anything happened: " + event);
            assertFalse(FdPoll.readable(events.fd(), 0));
            try
            {
                port("down");
                assertTrue(events.await(event, WAIT), "no PORT_ERR within " + WAIT);
                assertEquals(AsyncEvent.Type.PORT_ERR, event.type());
                assertEquals(10, event.typeValue());
                assertEquals(1, event.portNumber());
                assertEquals(-1, event.qpn());
                assertNull(event.queuePair());
                assertSame(context, event.context());
                assertEquals("PORT_ERR port 1", event.toString());
                assertEquals(IBV_PORT_DOWN, context.queryPort(1).state());
                assertEquals("1: DOWN", sysfs("state"));
                assertEquals("3: Disabled", sysfs("phys_state"));

                port("up");
                // the fd's readiness, as an epoll loop would see it, then the handler form
                assertTrue(FdPoll.readable(events.fd(), WAIT.toNanos()), "fd not readable for PORT_ACTIVE");
                final List<String> seen = new ArrayList<>();
                assertEquals(1, events.poll(e -> seen.add(e.type() + " " + e.portNumber()), 8));
                assertEquals(List.of("PORT_ACTIVE 1"), seen);
                assertFalse(FdPoll.readable(events.fd(), 0), "readable with no event left");
                assertEquals(IBV_PORT_ACTIVE, context.queryPort(1).state());
                assertEquals("4: ACTIVE", sysfs("state"));
                assertEquals(0, events.poll(e -> seen.add("more"), 8));
            }
            finally
            {
                port("up");
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void lastWqeReachedForAQpOnAnSrqMovedToErrorThenTheTeardown()
    {
        try (Context context = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final AsyncEvents events = context.asyncEvents();
            final Rig rig = new Rig(context, arena, 64, true);
            final SrqRecvQueue rq = SrqRecvQueue.of(rig.srq);
            for (int i = 0; i < 4; i++)
            {
                assertTrue(rq.post(100 + i, rig.mr.address() + 4096 + 256L * i, rig.mr.lkey(), 256));
            }
            rq.ring();
            final SendQueue sq = SendQueue.of(rig.a, DoorbellMode.AUTO);
            final CqPoller poller = CqPoller.of(rig.cq).attach(sq).attach(rq, rig.b);
            assertTrue(sq.send(7, rig.mr.address(), rig.mr.lkey(), 32, SendFlags.SIGNALED | SendFlags.RING));
            final Completion wc = new Completion();
            final List<Long> done = new ArrayList<>();
            final long end = System.nanoTime() + WAIT.toNanos();
            while (done.size() < 2 && System.nanoTime() < end)
            {
                if (poller.poll(wc) > 0)
                {
                    assertEquals(0, wc.statusCode(), wc.toString());
                    done.add(wc.wrId());
                }
            }
            assertEquals(List.of(7L, 100L), done.stream().sorted().toList());
            assertFalse(events.poll(new AsyncEvent()), "an event while both QPs work");

            // the teardown of a QP on an SRQ: ERR, wait for LAST_WQE_REACHED, drain its CQ, close
            rig.b.toError();
            final AsyncEvent event = events.await(WAIT);
            assertTrue(event != null, "no QP_LAST_WQE_REACHED within " + WAIT);
            assertEquals(AsyncEvent.Type.QP_LAST_WQE_REACHED, event.type());
            assertEquals(16, event.typeValue());
            assertEquals(rig.b.qpn(), event.qpn());
            assertSame(rig.b, event.queuePair());
            assertEquals(rig.b.pointer().address(), event.elementAddress());
            assertEquals(-1, event.portNumber());
            assertEquals("QP_LAST_WQE_REACHED QPN 0x" + Integer.toHexString(rig.b.qpn()), event.toString());
            assertEquals(0, poller.poll(wc), "no receive of b was in progress: nothing to flush");
            rig.b.close();
            assertTrue(rig.b.isClosed());
            assertFalse(events.poll(event), "a second event: " + event);
            assertEquals(QpState.RTS, rig.a.state());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void srqLimitFiresOncePerArm()
    {
        try (Context context = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final AsyncEvents events = context.asyncEvents();
            final Rig rig = new Rig(context, arena, 64, true);
            final SrqRecvQueue rq = SrqRecvQueue.of(rig.srq);
            for (int i = 0; i < 6; i++)
            {
                assertTrue(rq.post(100 + i, rig.mr.address() + 4096 + 256L * i, rig.mr.lkey(), 256));
            }
            rq.ring();
            assertEquals(0, rig.srq.limit());
            rig.srq.armLimit(4);
            assertEquals(4, rig.srq.limit());
            final SendQueue sq = SendQueue.of(rig.a, DoorbellMode.AUTO);
            final CqPoller poller = CqPoller.of(rig.cq).attach(sq).attach(rq, rig.b);
            final AsyncEvent event = new AsyncEvent();
            for (int i = 1; i <= 4; i++)
            {
                sendAndReap(rig, sq, poller, i);
                if (i < 3)
                {
                    assertFalse(events.poll(event), (6 - i) + " WQEs left, limit 4: " + event);
                }
                else if (i == 3)
                {
                    assertTrue(events.await(event, WAIT), "no SRQ_LIMIT_REACHED with 3 WQEs left");
                    assertEquals(AsyncEvent.Type.SRQ_LIMIT_REACHED, event.type());
                    assertSame(rig.srq, event.sharedReceiveQueue());
                    assertEquals(rig.srq.ring().srqn(), event.srqn());
                    assertEquals(-1, event.qpn());
                    assertEquals(0, rig.srq.limit(), "still armed after its event");
                }
                else
                {
                    assertFalse(events.poll(event), "a second event for one arm: " + event);
                }
            }
            rig.srq.armLimit(2);    // 2 left: the next consumption leaves 1
            sendAndReap(rig, sq, poller, 5);
            assertTrue(events.await(event, WAIT), "no event after re-arming");
            assertEquals(AsyncEvent.Type.SRQ_LIMIT_REACHED, event.type());
            assertSame(rig.srq, event.sharedReceiveQueue());
            final VerbsException tooBig = assertThrows(VerbsException.class, () -> rig.srq.armLimit(1 << 20));
            assertEquals("ibv_modify_srq", tooBig.call());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aBadRkeyRaisesAccessErrorAtTheResponderOnly()
    {
        try (Context context = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final AsyncEvents events = context.asyncEvents();
            final Rig rig = new Rig(context, arena, 64, false);
            final SendQueue sq = SendQueue.of(rig.a, DoorbellMode.AUTO);
            final CqPoller poller = CqPoller.of(rig.cq).attach(sq);
            assertTrue(sq.rdmaWrite(9, rig.mr.address(), rig.mr.lkey(), 64, rig.mr.address() + 8192,
                rig.mr.rkey() ^ 0x5500, SendFlags.SIGNALED | SendFlags.RING));
            final Completion wc = new Completion();
            final long end = System.nanoTime() + WAIT.toNanos();
            while (poller.poll(wc) == 0 && System.nanoTime() < end)
            {
                Thread.onSpinWait();
            }
            assertEquals(9, wc.wrId());
            assertEquals(10, wc.statusCode(), "IBV_WC_REM_ACCESS_ERR: " + wc);
            final AsyncEvent event = new AsyncEvent();
            assertTrue(events.await(event, WAIT), "no QP_ACCESS_ERR within " + WAIT);
            assertEquals(AsyncEvent.Type.QP_ACCESS_ERR, event.type());
            assertEquals(rig.b.qpn(), event.qpn());
            assertSame(rig.b, event.queuePair());
            assertEquals(QpState.ERR, rig.b.state());
            assertFalse(events.await(event, Duration.ofMillis(200)), "an event at the requester: " + event);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void cqOverrunRaisesCqErrorThenQpFatal()
    {
        try (Context context = Context.open("mlx5_0"); Arena arena = Arena.ofShared())
        {
            final AsyncEvents events = context.asyncEvents();
            final Rig rig = new Rig(context, arena, 4, false);   // a on the small CQ, b on its own
            final int entries = rig.cq.ring().cqeCnt();
            final SendQueue sq = SendQueue.of(rig.a, DoorbellMode.AUTO);
            final long violations = EmulatedDevice.strictViolations();
            for (int i = 0; i <= entries; i++)
            {
                assertTrue(sq.rdmaWrite(i, rig.mr.address(), rig.mr.lkey(), 8, rig.mr.address() + 8192,
                    rig.mr.rkey(), SendFlags.SIGNALED | SendFlags.RING), "post " + i);
            }
            final List<String> seen = new ArrayList<>();
            final long end = System.nanoTime() + WAIT.toNanos();
            while (seen.size() < 2 && System.nanoTime() < end)
            {
                if (FdPoll.readable(events.fd(), 100_000_000L))
                {
                    events.poll(e -> seen.add(e.type() + " " + (e.type() == AsyncEvent.Type.CQ_ERR
                        ? (e.completionQueue() == rig.cq) + " " + e.cqn() : (e.queuePair() == rig.a) + " " + e.qpn())),
                        8);
                }
            }
            assertEquals(List.of("CQ_ERR true " + rig.cq.ring().cqn(), "QP_FATAL true " + rig.a.qpn()), seen);
            assertEquals(violations + 1, EmulatedDevice.strictViolations(), "the overrun, once");
            assertEquals(QpState.ERR, rig.a.state());
            assertEquals(QpState.RTS, rig.b.state());
        }
    }

    /** The call an event loop makes all the time, on an empty queue: no allocation (the thread's counter). */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anEmptyPollAllocatesNothing()
    {
        try (Context context = Context.open("mlx5_0"))
        {
            final AsyncEvents events = context.asyncEvents();
            final AsyncEvent event = new AsyncEvent();
            final AsyncEvents.Handler handler = e -> fail("no event was raised: " + e);
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long tid = Thread.currentThread().threadId();
            // the least of 5 rounds of 100000: an allocation per call would be at least 1.6 MB in every round, while
            // one-off work (linking the downcalls, the JIT's compilations) shows up in some rounds only
            long bytes = Long.MAX_VALUE;
            for (int round = 0; round < 5; round++)
            {
                final long before = threads.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 100_000; i++)
                {
                    if (events.poll(event) || events.poll(handler, 4) != 0)
                    {
                        fail("an event: " + event);
                    }
                }
                bytes = Math.min(bytes, threads.getThreadAllocatedBytes(tid) - before);
            }
            assertEquals(0, bytes, "bytes allocated by 100000 empty polls, in the best round");
        }
    }

    /** One SEND a to b, its send and receive completions reaped. */
    private static void sendAndReap(final Rig rig, final SendQueue sq, final CqPoller poller, final int n)
    {
        assertTrue(sq.send(n, rig.mr.address(), rig.mr.lkey(), 16, SendFlags.SIGNALED | SendFlags.RING));
        final Completion wc = new Completion();
        int got = 0;
        final long end = System.nanoTime() + WAIT.toNanos();
        while (got < 2 && System.nanoTime() < end)
        {
            if (poller.poll(wc) > 0)
            {
                assertEquals(0, wc.statusCode(), wc.toString());
                got++;
            }
        }
        assertEquals(2, got, "send " + n);
    }

    /** Two RC QPs connected to each other: a on cq (of the given depth), b on an SRQ or a CQ of its own. */
    private static final class Rig
    {
        final ProtectionDomain pd;
        final MemoryRegion mr;
        final CompletionQueue cq;
        final SharedReceiveQueue srq;
        final QueuePair a;
        final QueuePair b;

        Rig(final Context context, final Arena arena, final int cqDepth, final boolean withSrq)
        {
            pd = context.allocPd();
            final MemorySegment buf = arena.allocate(1 << 16, 4096);
            mr = pd.register(arena, buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            cq = context.createCq(cqDepth);
            srq = withSrq ? pd.createSrq(16, 1) : null;
            a = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final CompletionQueue bCq = withSrq ? cq : context.createCq(64);
            b = pd.createQp(withSrq ? QpConfig.builder(QpType.RC, bCq).srq(srq).build()
                : QpConfig.builder(QpType.RC, bCq).build());
            final PortAttributes port = context.queryPort(1);
            final Gid gid = context.queryGid(1, 0);
            final AddressVector path = AddressVector.ib(1, port.lid(), 0);
            a.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(port.lid(), b.qpn(), 0x100, gid), path,
                0x200);
            b.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(port.lid(), a.qpn(), 0x200, gid), path,
                0x100);
        }
    }

    /** {@code emulator/mlx5emu port mlx5_0 1 STATE}, as a separate process on this JVM's fabric. */
    private static void port(final String state) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(launcher().toString(), "port", "mlx5_0", "1", state)
            .redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mlx5emu port did not finish");
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "mlx5emu port mlx5_0 1 " + state + ": " + out);
    }

    /** The launcher next to the preloaded library (emulator/build/libmlx5emu.so -> emulator/mlx5emu). */
    private static Path launcher()
    {
        for (final String part : System.getenv("LD_PRELOAD").split("[: ]"))
        {
            if (part.endsWith("libmlx5emu.so"))
            {
                return Path.of(part).toAbsolutePath().getParent().getParent().resolve("mlx5emu");
            }
        }
        throw new IllegalStateException("libmlx5emu.so is not preloaded");
    }

    private static String sysfs(final String attribute) throws IOException
    {
        return Files.readString(Path.of(System.getenv("SYSFS_PATH"), "class", "infiniband", "mlx5_0", "ports", "1",
            attribute)).strip();
    }
}
