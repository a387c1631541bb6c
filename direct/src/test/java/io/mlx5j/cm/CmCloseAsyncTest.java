// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.QpClose;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.BitSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Teardown of rdma_cm connections from the thread that sees DISCONNECTED, while an owner thread posts and polls:
 * the server side disconnects; on the client a CM thread waits for DISCONNECTED and hands the QP's close to the
 * owner ({@link CqPoller#closeAsync}), then closes the connection. Every SEND and every receive must complete exactly
 * once (success or flush), and each cycle must leave no QP behind in the emulated kernel.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CmCloseAsyncTest
{
    private static final int CYCLES = 1000;
    private static final Duration T = Duration.ofSeconds(10);
    private static final int RECEIVES = 16;
    private static final int MSG = 64;

    private Endpoint server;
    private Endpoint client;
    private CmListener listener;
    private InetSocketAddress address;
    private Thread owner;
    private CqPoller ccq;
    private CqPoller scq;
    private long qpsBefore = -1;
    private final BlockingQueue<Cycle> handoff = new ArrayBlockingQueue<>(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;

    private static final class Cycle
    {
        final int n;
        final SendQueue sq;
        final RecvQueue rq;
        volatile QpClose clientClose;
        volatile QpClose serverClose;
        volatile boolean started;
        volatile long sendsOk;
        /** Owner-written, read after {@link #report}: SENDs and receives posted, completed, flushed. */
        final long[] posted = new long[2];
        final long[] completed = new long[2];
        final long[] flushed = new long[2];
        final BlockingQueue<String> report = new ArrayBlockingQueue<>(1);

        Cycle(final int n, final CmConnection c, final CmConnection s)
        {
            this.n = n;
            this.sq = SendQueue.of(c.qp(), DoorbellMode.AUTO);
            this.rq = RecvQueue.of(s.qp());
        }
    }

    @BeforeAll
    void open() throws Exception
    {
        server = new Endpoint();
        client = new Endpoint();
        server.open("mlx5_0");
        client.open("mlx5_0");
        ccq = CqPoller.of(client.cq);
        scq = CqPoller.of(server.cq);
        address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        listener = CmListener.bind(address, 4);
        owner = new Thread(this::ownerLoop, "owner");
        owner.start();
    }

    @AfterAll
    void close() throws InterruptedException
    {
        stop = true;
        owner.join(TimeUnit.SECONDS.toMillis(30));
        listener.close();
        server.close();
        client.close();
        assertFalse(owner.isAlive(), "owner ended");
        assertNull(failure.get(), () -> "owner failed: " + failure.get());
    }

    @RepeatedTest(CYCLES)
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theCmThreadHandsTheTeardownToTheOwner(final RepetitionInfo info) throws Exception
    {
        assertNull(failure.get(), () -> "owner failed in an earlier cycle: " + failure.get());
        final int n = info.getCurrentRepetition();
        final CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(() ->
            listener.awaitRequest(T).accept(server::rc, ConnectOptions.builder().timeout(T).build()));
        final CmConnection c = CmConnection.connect(address, ConnectOptions.builder().timeout(T).build(), client::rc);
        final CmConnection s = accepted.get(20, TimeUnit.SECONDS);
        if (qpsBefore < 0)
        {
            qpsBefore = EmulatedDevice.live().get("qps") - 2;
        }
        final Cycle cycle = new Cycle(n, c, s);
        // the CM thread of the client: DISCONNECTED, then the owner tears the QP down, then the id goes
        final AtomicReference<Throwable> cmFailure = new AtomicReference<>();
        final Thread cm = new Thread(() ->
        {
            try
            {
                assertTrue(c.awaitDisconnected(T), "client saw DISCONNECTED");
                final QpClose close = ccq.closeAsync(c.qp());
                cycle.clientClose = close;
                assertTrue(close.await(30, TimeUnit.SECONDS), "client QP closed by its owner");
                c.close();
            }
            catch (final Throwable ex)
            {
                cmFailure.set(ex);
            }
        }, "cm");
        cm.start();
        assertTrue(handoff.offer(cycle, 30, TimeUnit.SECONDS), "owner takes the connection");
        while ((!cycle.started || cycle.sendsOk < n % 5) && failure.get() == null)
        {
            Thread.onSpinWait();
        }
        s.disconnect(T);
        cycle.serverClose = scq.closeAsync(s.qp());
        assertTrue(cycle.serverClose.await(30, TimeUnit.SECONDS), "server QP closed by its owner");
        s.close();
        cm.join(TimeUnit.SECONDS.toMillis(40));
        assertFalse(cm.isAlive(), "CM thread done");
        assertNull(cmFailure.get(), () -> "CM thread failed: " + cmFailure.get());
        assertEquals("ok", cycle.report.poll(30, TimeUnit.SECONDS));
        assertNull(failure.get(), () -> "owner failed: " + failure.get());
        for (int k = 0; k < 2; k++)
        {
            assertEquals(cycle.posted[k], cycle.completed[k], "kind " + k + ": every posted WR completed once");
        }
        assertEquals(qpsBefore, EmulatedDevice.live().get("qps"), "QPs live after cycle " + n);
    }

    /** Posts the server's receives and the client's SENDs, polls both CQs, checks each completion by wr_id. */
    private void ownerLoop()
    {
        try
        {
            final Completion wc = new Completion();
            Cycle cur = null;
            BitSet[] seen = null;
            boolean sendClosed = false;
            int inFlight = 0;
            while (!stop || cur != null)
            {
                if (cur == null)
                {
                    cur = handoff.poll(1, TimeUnit.MILLISECONDS);
                    if (cur == null)
                    {
                        continue;
                    }
                    ccq.attach(cur.sq);
                    scq.attach(cur.rq);
                    seen = new BitSet[] {new BitSet(), new BitSet()};
                    sendClosed = false;
                    inFlight = 0;
                    try
                    {
                        for (int i = 0; i < RECEIVES; i++)
                        {
                            if (cur.rq.post(wrId(cur, 1, cur.posted[1]), server.buf.address() + 1024, server.mr.lkey(),
                                MSG))
                            {
                                cur.posted[1]++;
                            }
                        }
                        cur.rq.ring();
                    }
                    catch (final IllegalStateException closing)
                    {
                        assertTrue(closing.getMessage().contains(" clos"), closing.getMessage());
                    }
                    cur.started = true;
                }
                // at most RECEIVES SENDs per connection, 4 in flight: the server never runs out of receives
                if (!sendClosed && inFlight < 4 && cur.posted[0] < RECEIVES)
                {
                    try
                    {
                        if (cur.sq.send(wrId(cur, 0, cur.posted[0]), client.buf.address(), client.mr.lkey(), MSG,
                            SendFlags.SIGNALED | SendFlags.RING))
                        {
                            cur.posted[0]++;
                            inFlight++;
                        }
                    }
                    catch (final IllegalStateException closing)
                    {
                        assertTrue(closing.getMessage().contains(" clos"), closing.getMessage());
                        sendClosed = true;
                    }
                }
                for (final CqPoller poller : new CqPoller[] {ccq, scq})
                {
                    while (poller.poll(wc) == 1)
                    {
                        final long id = wc.wrId();
                        final int kind = (int) (id >>> 56);
                        final long seq = id & 0xffff_ffffL;
                        if ((int) (id >>> 32 & 0xff_ffff) != cur.n || kind > 1 || seq >= cur.posted[kind] ||
                            seen[kind].get((int) seq))
                        {
                            throw new AssertionError("cycle " + cur.n + ": completion of wr_id 0x" +
                                Long.toHexString(id) + " twice or never posted (" + wc.status() + ")");
                        }
                        seen[kind].set((int) seq);
                        cur.completed[kind]++;
                        if (wc.status() == WcStatus.WR_FLUSH_ERR)
                        {
                            cur.flushed[kind]++;
                        }
                        else if (!wc.isSuccess())
                        {
                            throw new AssertionError("cycle " + cur.n + ": wr_id 0x" + Long.toHexString(id) +
                                " ended " + wc.status());
                        }
                        if (kind == 0)
                        {
                            inFlight--;
                            if (wc.isSuccess())
                            {
                                cur.sendsOk++;
                            }
                        }
                    }
                }
                final QpClose cc = cur.clientClose;
                final QpClose sc = cur.serverClose;
                if (cc != null && sc != null && cc.isDone() && sc.isDone())
                {
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

    private static long wrId(final Cycle c, final int kind, final long seq)
    {
        return (long) kind << 56 | (long) c.n << 32 | seq;
    }
}
