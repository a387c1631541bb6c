// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpState;
import io.mlx5j.verbs.QpType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link CmServer}: a requester that sends its request and never completes the handshake (it never reads its
 * channel, so librdmacm never sends the RTU) holds one accept, and the {@value #CLIENTS} requesters that come after it
 * all connect while that accept still waits: when the last of them is established, no accept has failed yet. Each
 * connection then carries one message, checked by content. The stuck accept ends by its own timeout as a
 * {@link CmTimeoutException}, and nothing is left behind. A server that answers one request at a time fails the
 * first check (the stuck accept times out before anyone behind it is served).
 */
class CmServerTest
{
    private static final int CLIENTS = 8;
    /** The per-request accept timeout: long enough for CLIENTS connects on a loaded machine. */
    private static final Duration ACCEPT = Duration.ofSeconds(30);
    private static final Duration T = Duration.ofSeconds(60);

    @Test
    void aStuckRequesterDoesNotStallTheOthers() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        final Map<Integer, RecvQueue> serverRq = new ConcurrentHashMap<>();
        final Map<Integer, Long> landing = new ConcurrentHashMap<>();
        final AtomicInteger accepts = new AtomicInteger();
        final List<CmConnection> clients = new ArrayList<>();
        final List<CmConnection> served = new ArrayList<>();
        try (Endpoint server = new Endpoint(); Endpoint client = new Endpoint(); Endpoint stuck = new Endpoint();
             CmListener listener = CmListener.bind(address, 64))
        {
            server.open("mlx5_0");
            client.open("mlx5_0");
            final QpFactory serverQp = id -> server.pd.createQp(QpConfig.builder(QpType.RC, server.cq)
                .maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1).build());
            final CmServer cms = CmServer.start(listener, 4, serverQp,
                ConnectOptions.builder().timeout(ACCEPT).build(), qp ->
                {
                    // runs on the accept threads, several at once: each receive gets its own 64 bytes
                    final long at = 64L * accepts.getAndIncrement();
                    final RecvQueue rq = RecvQueue.of(qp);
                    assertTrue(rq.post(qp.qpn(), server.buf.address() + at, server.mr.lkey(), 64));
                    rq.ring();
                    landing.put(qp.qpn(), at);
                    serverRq.put(qp.qpn(), rq);
                });
            try (cms; EventChannel stuckChannel = EventChannel.create())
            {
                // the stuck requester: route, QP, REQ, and then it never reads its channel again
                final CmId stuckId = stuckChannel.createId(PortSpace.TCP);
                stuckId.resolveAddress(null, address, T);
                assertEquals(CmEventType.ADDR_RESOLVED, stuckId.awaitEvent(T).type());
                stuckId.resolveRoute(T);
                assertEquals(CmEventType.ROUTE_RESOLVED, stuckId.awaitEvent(T).type());
                stuckId.connect(stuck.rc(stuckId), ConnectOptions.builder().timeout(T).build());
                final long deadline = System.nanoTime() + T.toNanos();
                while (cms.requests() < 1)
                {
                    if (System.nanoTime() > deadline)
                    {
                        fail("the server never took the stuck request");
                    }
                    Thread.sleep(10);
                }

                for (int i = 0; i < CLIENTS; i++)
                {
                    final byte[] hello = ByteBuffer.allocate(4).putInt(i).array();
                    clients.add(CmConnection.connect(address, ConnectOptions.builder().privateData(hello).timeout(T)
                        .build(), id -> client.pd.createQp(QpConfig.builder(QpType.RC, client.cq).maxSendWr(4)
                        .maxRecvWr(4).maxSendSge(1).maxRecvSge(1).build())));
                }
                for (int i = 0; i < CLIENTS; i++)
                {
                    final CmConnection s = cms.take(T);
                    assertNotNull(s, "connection " + i + " was not established on the server");
                    served.add(s);
                }
                assertEquals(0, cms.failed(), () -> "an accept failed while the stuck one waits: " + cms.failures());
                assertEquals(CLIENTS + 1, cms.requests());

                // one message per connection, each to its own receive, checked by content
                final CqPoller ccq = CqPoller.of(client.cq);
                final CqPoller scq = CqPoller.of(server.cq);
                for (final CmConnection s : served)
                {
                    assertEquals(QpState.RTS, s.qp().state());
                    scq.attach(serverRq.get(s.qp().qpn()));
                }
                final Completion wc = new Completion();
                for (int i = 0; i < CLIENTS; i++)
                {
                    final CmConnection c = clients.get(i);
                    assertEquals(QpState.RTS, c.qp().state());
                    final SendQueue sq = SendQueue.of(c.qp(), DoorbellMode.AUTO);
                    ccq.attach(sq);
                    final long at = 2048 + 64L * i;
                    client.buf.asSlice(at, 64).fill((byte) (0x40 + i));
                    assertTrue(sq.send(i, client.buf.address() + at, client.mr.lkey(), 64,
                        SendFlags.SIGNALED | SendFlags.RING));
                    await(ccq, wc);
                    assertEquals(i, wc.wrId(), wc::toString);
                    assertTrue(wc.isSuccess(), wc::toString);
                    await(scq, wc);
                    assertTrue(wc.isSuccess(), wc::toString);
                    final RecvQueue rq = serverRq.get(wc.qpn());
                    assertNotNull(rq, wc::toString);
                    assertEquals(wc.qpn(), (int) wc.wrId(), wc::toString);
                    final byte[] sent = client.buf.asSlice(at, 64).toArray(ValueLayout.JAVA_BYTE);
                    assertArrayEquals(sent, server.buf.asSlice(landing.get(wc.qpn()), 64)
                        .toArray(ValueLayout.JAVA_BYTE), "message " + i);
                }

                // the stuck accept ends by its own timeout, as a timeout
                final long end = System.nanoTime() + ACCEPT.toNanos() + T.toNanos();
                while (cms.failed() == 0)
                {
                    if (System.nanoTime() > end)
                    {
                        fail("the stuck accept never timed out");
                    }
                    Thread.sleep(50);
                }
                assertEquals(1, cms.failed());
                assertInstanceOf(CmTimeoutException.class, cms.failures().get(0), cms.failures()::toString);
                stuckId.close();
            }
            finally
            {
                for (final CmConnection c : clients)
                {
                    c.close();
                }
                for (final CmConnection s : served)
                {
                    s.close();
                }
            }
        }
        leaks.assertNone();
    }

    private static void await(final CqPoller cq, final Completion wc)
    {
        final long deadline = System.nanoTime() + T.toNanos();
        while (cq.poll(wc) == 0)
        {
            if (System.nanoTime() > deadline)
            {
                fail("no completion on " + cq);
            }
            Thread.onSpinWait();
        }
    }

}
