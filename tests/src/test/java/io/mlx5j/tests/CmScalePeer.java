// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.CmListener;
import io.mlx5j.cm.CmServer;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The passive side of {@link CmScaleTest}, in its own process: a {@link CmServer} on 127.0.0.1:PORT accepts COUNT RC
 * connections; each QP gets one receive of {@value #MESSAGE} bytes before its accept leaves, and every message that
 * arrives is sent back on its connection unchanged. Prints {@code READY} once listening and {@code DONE n} when n
 * messages went back (their send completions polled), then waits for a line on stdin and closes everything.
 * Usage: {@code CmScalePeer PORT COUNT}.
 */
public final class CmScalePeer
{
    static final int MESSAGE = 64;
    private static final Duration T = Duration.ofSeconds(120);

    private CmScalePeer()
    {
    }

    /** Queues made on an accept thread, attached by the polling thread before the accept may leave. */
    private record Attach(QueuePair qp, RecvQueue rq, CountDownLatch attached)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int port = Integer.parseInt(args[0]);
        final int count = Integer.parseInt(args[1]);
        final ConcurrentLinkedQueue<Attach> toAttach = new ConcurrentLinkedQueue<>();
        final AtomicInteger slots = new AtomicInteger();
        try (Arena arena = Arena.ofShared(); Context context = Context.open("mlx5_0"))
        {
            final MemorySegment buf = arena.allocate((long) MESSAGE * count, 4096);
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(2 * count + 64);
            final MemoryRegion mr = pd.register(buf, Access.LOCAL_WRITE);
            final Map<Integer, SendQueue> sqs = new HashMap<>();
            final List<CmConnection> connections = new ArrayList<>();
            try (CmListener listener = CmListener.bind(new InetSocketAddress("127.0.0.1", port), 1024);
                 CmServer server = CmServer.start(listener, 16,
                     id -> pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(2).maxRecvWr(2).maxSendSge(1)
                         .maxRecvSge(1).build()),
                     ConnectOptions.builder().timeout(T).build(), qp ->
                     {
                         final int slot = slots.getAndIncrement();
                         final RecvQueue rq = RecvQueue.of(qp);
                         if (!rq.post(slot, buf.address() + (long) MESSAGE * slot, mr.lkey(), MESSAGE))
                         {
                             throw new IllegalStateException("receive ring full");
                         }
                         rq.ring();
                         final CountDownLatch attached = new CountDownLatch(1);
                         toAttach.add(new Attach(qp, rq, attached));
                         try
                         {
                             // the client may send as soon as the accept leaves: its CQE must find the queue attached
                             if (!attached.await(T.toSeconds(), TimeUnit.SECONDS))
                             {
                                 throw new IllegalStateException("the polling thread did not attach " + qp);
                             }
                         }
                         catch (final InterruptedException ex)
                         {
                             Thread.currentThread().interrupt();
                             throw new IllegalStateException(ex);
                         }
                     }))
            {
                System.out.println("READY");
                System.out.flush();
                final CqPoller poller = CqPoller.of(cq);
                final Completion c = new Completion();
                int echoed = 0;
                int sendsDone = 0;
                // the connects (up to T each, accepted 16 at a time) and then the echoes: a bound against a hang only
                final long deadline = System.nanoTime() + T.toNanos() * 10;
                while (sendsDone < count)
                {
                    if (System.nanoTime() > deadline)
                    {
                        throw new IllegalStateException("only " + sendsDone + " of " + count + " echoes went back");
                    }
                    for (Attach a = toAttach.poll(); a != null; a = toAttach.poll())
                    {
                        final SendQueue sq = SendQueue.of(a.qp(), DoorbellMode.AUTO);
                        poller.attach(a.rq()).attach(sq);
                        sqs.put(a.qp().qpn(), sq);
                        a.attached().countDown();
                    }
                    for (CmConnection conn = server.take(Duration.ZERO); conn != null;
                         conn = server.take(Duration.ZERO))
                    {
                        connections.add(conn);
                    }
                    if (poller.poll(c) == 0)
                    {
                        Thread.onSpinWait();
                        continue;
                    }
                    if (!c.isSuccess())
                    {
                        throw new IllegalStateException("completion failed: " + c);
                    }
                    if (c.opcode() == WcOpcode.SEND)
                    {
                        sendsDone++;
                        continue;
                    }
                    final long at = buf.address() + (long) MESSAGE * c.wrId();
                    if (c.byteLen() != MESSAGE || !sqs.get(c.qpn()).send(c.wrId(), at, mr.lkey(), MESSAGE,
                        SendFlags.SIGNALED | SendFlags.RING))
                    {
                        throw new IllegalStateException("cannot echo " + c);
                    }
                    echoed++;
                }
                System.out.println("DONE " + echoed + " failed " + server.failed());
                System.out.flush();
                System.in.read();
                for (final CmConnection conn : connections)
                {
                    conn.close();
                }
            }
        }
    }
}
