// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.QpState;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * io.mlx5j.cm end to end on the emulated device, both sides in this JVM (a listener thread and the test thread):
 * private data both ways, the QPs in RTS with the CM's attributes, traffic through the Java direct path on the
 * connected QPs (SEND, RDMA WRITE with the address the passive side sent as private data, RDMA READ), disconnect
 * seen by both sides, nothing left behind.
 */
class CmConnectionTest
{
    static final Duration T = Duration.ofSeconds(10);

    /**
     * A port free both for the host's TCP (the C tools' side channels) and in the emulated rdma_cm's port table:
     * the emulated CM hands out ephemeral ports from the same 32768..60999 range as Linux, so a port the kernel
     * calls free can still be held by an id of another test on this fabric (CmFailureTest once got one).
     */
    static int freePort() throws IOException
    {
        for (int attempt = 0; ; attempt++)
        {
            final int port = EmulatedDevice.freeTcpPort();
            try (EventChannel channel = EventChannel.create())
            {
                channel.createId(PortSpace.TCP).bind(new InetSocketAddress("127.0.0.1", port));
                return port;
            }
            catch (final CmCallException ex)
            {
                if (ex.errno() != 98 || attempt == 20)
                {
                    throw ex;
                }
            }
        }
    }

    /** resolveRoute right after resolveAddress, before ADDR_RESOLVED: librdmacm would crash the process on it. */
    @Test
    void routeBeforeAddressResolvedIsRefused()
    {
        try (EventChannel channel = EventChannel.create())
        {
            final CmId id = channel.createId(PortSpace.TCP);
            final IllegalStateException ex = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class, () -> id.resolveRoute(Duration.ofSeconds(1)));
            assertTrue(ex.getMessage().contains("ADDR_RESOLVED"), ex.getMessage());
        }
    }

    @Test
    void connectAcceptTrafficDisconnect() throws Exception
    {
        connectAcceptTrafficDisconnect("127.0.0.1");
    }

    @Test
    void overIpv6() throws Exception
    {
        connectAcceptTrafficDisconnect("::1");
    }

    static void connectAcceptTrafficDisconnect(final String ip) throws Exception
    {
        final Leaks leaks = new Leaks();
        final int port = freePort();
        final InetSocketAddress address = new InetSocketAddress(ip, port);
        final byte[] hello = "hello from the client".getBytes(StandardCharsets.US_ASCII);
        final RecvQueue[] serverRq = new RecvQueue[1];
        try (Endpoint server = new Endpoint(); Endpoint client = new Endpoint();
             CmListener listener = CmListener.bind(address, 4))
        {
            assertEquals(port, listener.port());
            final CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(() ->
            {
                final ConnectionRequest request = listener.awaitRequest(T);
                assertArrayEquals(hello, Arrays.copyOf(request.privateData(), hello.length));
                assertEquals("mlx5_0", request.deviceName());
                assertEquals(1, request.port());
                assertEquals(address, request.localAddress());
                // the passive side's buffer, for the client's RDMA WRITE and READ: addr, rkey
                server.open(request.deviceName());
                final byte[] info = ByteBuffer.allocate(12).putLong(server.buf.address()).putInt(server.mr.rkey())
                    .array();
                return request.accept(server::rc, ConnectOptions.builder().privateData(info).timeout(T).build(), qp ->
                {
                    // a receive for the client's SEND, posted with the QP in INIT before the accept leaves
                    final RecvQueue rq = RecvQueue.of(qp);
                    serverRq[0] = rq;
                    assertTrue(rq.post(7, server.buf.address() + 1024, server.mr.lkey(), 512));
                    rq.ring();
                    assertEquals(QpState.INIT, qp.state());
                });
            });
            final CmConnection c = CmConnection.connect(address, ConnectOptions.builder().privateData(hello)
                .responderResources(4).initiatorDepth(4).timeout(T).build(), client::rc);
            final CmConnection s = accepted.get(20, TimeUnit.SECONDS);
            assertEquals(QpState.RTS, c.qp().state());
            assertEquals(QpState.RTS, s.qp().state());
            assertEquals(address, c.remoteAddress());
            assertEquals(c.localAddress(), s.remoteAddress());
            assertEquals(1, client.factoryCalls);
            final ByteBuffer info = ByteBuffer.wrap(c.peerPrivateData());
            final long remoteAddr = info.getLong(0);
            final int remoteRkey = info.getInt(8);
            assertEquals(server.buf.address(), remoteAddr);

            // traffic on the CM-connected QPs, through the Java direct path
            final SendQueue sq = SendQueue.of(c.qp(), DoorbellMode.AUTO);
            final CqPoller ccq = CqPoller.of(client.cq).attach(sq);
            final CqPoller scq = CqPoller.of(server.cq).attach(serverRq[0]);
            final Completion wc = new Completion();
            final byte[] text = "sent over a connection rdma_cm made".getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(text, 0, client.buf, ValueLayout.JAVA_BYTE, 0, text.length);
            assertTrue(sq.send(1, client.buf.address(), client.mr.lkey(), text.length,
                SendFlags.SIGNALED | SendFlags.RING));
            await(ccq, wc, 1);
            await(scq, wc, 7);
            assertEquals(text.length, wc.byteLen());
            assertArrayEquals(text, server.buf.asSlice(1024, text.length).toArray(ValueLayout.JAVA_BYTE));

            client.buf.asSlice(0, 256).fill((byte) 0x5a);
            assertTrue(sq.rdmaWrite(2, client.buf.address(), client.mr.lkey(), 256, remoteAddr + 2048, remoteRkey,
                SendFlags.SIGNALED | SendFlags.RING));
            await(ccq, wc, 2);
            assertTrue(sq.rdmaRead(3, client.buf.address() + 512, client.mr.lkey(), 256, remoteAddr + 2048,
                remoteRkey, SendFlags.SIGNALED | SendFlags.RING));
            await(ccq, wc, 3);
            assertEquals(-1, client.buf.asSlice(0, 256).mismatch(client.buf.asSlice(512, 256)));
            assertEquals(-1, client.buf.asSlice(0, 256).mismatch(server.buf.asSlice(2048, 256)));

            // the passive side must read its DISCONNECTED (and so answer the DREQ) while the active side waits
            final CompletableFuture<Boolean> passive = CompletableFuture.supplyAsync(() -> s.awaitDisconnected(T));
            c.disconnect(T);
            assertTrue(passive.get(20, TimeUnit.SECONDS), "the passive side saw no DISCONNECTED");
            assertTrue(c.isDisconnected());
            assertEquals(QpState.ERR, s.qp().state());
            c.close();
            s.close();
        }
        leaks.assertNone();
    }

    /** The event-loop shape: the channel's fd, a non-blocking poll that returns 0 at once, and a handler. */
    @Test
    void eventLoopPollDrivesAnAsynchronousResolve() throws Exception
    {
        final Leaks leaks = new Leaks();
        try (EventChannel channel = EventChannel.create())
        {
            assertTrue(channel.fd() >= 0);
            final List<CmEvent> events = new ArrayList<>();
            final long t0 = System.nanoTime();
            assertEquals(0, channel.poll(events::add, 16));
            assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(200), "poll blocked");
            final CmId id = channel.createId(PortSpace.TCP);
            id.resolveAddress(null, new InetSocketAddress("127.0.0.1", 9), Duration.ofSeconds(2));
            final long deadline = System.nanoTime() + T.toNanos();
            while (events.isEmpty() && System.nanoTime() < deadline)
            {
                channel.poll(events::add, 16, Duration.ofMillis(50));
            }
            assertEquals(1, events.size(), events.toString());
            assertEquals(CmEventType.ADDR_RESOLVED, events.get(0).type());
            assertTrue(events.get(0).id() == id);
            assertEquals("mlx5_0", id.deviceName());
            assertEquals(1, id.port());
            id.resolveRoute(Duration.ofSeconds(2));
            events.clear();
            while (events.isEmpty() && System.nanoTime() < deadline)
            {
                channel.poll(events::add, 16, Duration.ofMillis(50));
            }
            assertEquals(CmEventType.ROUTE_RESOLVED, events.get(0).type());
            assertEquals(0, channel.poll(events::add, 16));
        }
        leaks.assertNone();
    }

    static void await(final CqPoller cq, final Completion wc, final long wrId)
    {
        final long deadline = System.nanoTime() + T.toNanos();
        while (cq.poll(wc) == 0)
        {
            assertTrue(System.nanoTime() < deadline, "no completion for wr_id " + wrId);
            Thread.yield();
        }
        assertTrue(wc.isSuccess(), wc.toString());
        assertEquals(wrId, wc.wrId());
    }
}
