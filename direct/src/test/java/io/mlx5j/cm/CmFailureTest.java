// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.direct.RecvQueue;
import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every way a connection fails reaches Java as a typed exception that names the step, the CM event and its status,
 * within the step's timeout, and leaves no QP, CQ, MR or PD behind (the emulated kernel's live counts, before vs
 * after). The failures are the fabric's, produced by the emulated CM exactly as a real one would produce them: no
 * listener (REJECTED, reason 8), an address no port owns (ADDR_ERROR after the resolve timeout), a peer application
 * that rejects (REJECTED, reason 28, its private data), a peer that never answers (UNREACHABLE, -ETIMEDOUT), a peer
 * process that dies (DISCONNECTED), and steps that outlast their own timeout (CmTimeoutException).
 */
class CmFailureTest
{
    private static final Duration T = Duration.ofSeconds(10);
    private static final Duration SHORT = Duration.ofSeconds(1);

    @Test
    void noListenerIsRejectedWithInvalidServiceId() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress nobody = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        try (Endpoint client = new Endpoint())
        {
            final long t0 = System.nanoTime();
            final CmRejectedException ex = assertThrows(CmRejectedException.class, () -> CmConnection.connect(nobody,
                ConnectOptions.builder().timeout(SHORT).build(), client::rc));
            // address, route and connect each have SHORT; the REJECTED comes long before the last one ends
            assertTrue(System.nanoTime() - t0 < 3 * SHORT.toNanos(), "took longer than the steps' timeouts");
            leaks.assertNoQpLeft();
            assertEquals(CmEventType.REJECTED, ex.event());
            assertEquals(CmRejectedException.REASON_NO_LISTENER, ex.reason());
            assertEquals("connect to " + nobody
                + ": RDMA_CM_EVENT_REJECTED, status 8 (INVALID_SERVICE_ID (no listener))", ex.getMessage());
            assertEquals(1, client.factoryCalls, "the QP was made (after the route) and must be gone again");
        }
        leaks.assertNone();
    }

    @Test
    void unknownAddressIsAnAddressErrorAfterTheResolveTimeout() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress nowhere = new InetSocketAddress("127.0.0.99", 7471);
        try (Endpoint client = new Endpoint())
        {
            final long t0 = System.nanoTime();
            final CmAddressException ex = assertThrows(CmAddressException.class, () -> CmConnection.connect(nowhere,
                ConnectOptions.builder().addressTimeout(SHORT).build(), client::rc));
            final long took = System.nanoTime() - t0;
            assertTrue(took >= SHORT.toNanos() * 9 / 10, "ADDR_ERROR before the resolve timeout: " + took);
            assertTrue(took < SHORT.plus(CmConnection.CM_GRACE).toNanos(), "after the timeout and grace: " + took);
            assertEquals(CmEventType.ADDR_ERROR, ex.event());
            assertEquals(-110, ex.status());
            assertEquals("resolve address " + nowhere + ": RDMA_CM_EVENT_ADDR_ERROR, status -110 (-ETIMEDOUT)",
                ex.getMessage());
            assertEquals(0, client.factoryCalls, "no device: no QP may be made");
        }
        leaks.assertNone();
    }

    @Test
    void applicationRejectCarriesReasonAndPrivateData() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        final byte[] why = "full, try 127.0.0.2".getBytes(StandardCharsets.US_ASCII);
        try (Endpoint client = new Endpoint(); CmListener listener = CmListener.bind(address, 1))
        {
            final CompletableFuture<Void> rejecter = CompletableFuture.runAsync(() ->
                listener.awaitRequest(T).reject(why));
            final CmRejectedException ex = assertThrows(CmRejectedException.class, () -> CmConnection.connect(address,
                ConnectOptions.builder().timeout(T).build(), client::rc));
            rejecter.get(20, TimeUnit.SECONDS);
            assertEquals(CmRejectedException.REASON_CONSUMER, ex.reason());
            assertArrayEquals(why, Arrays.copyOf(ex.privateData(), why.length));
            assertTrue(ex.getMessage().contains("RDMA_CM_EVENT_REJECTED, status 28 (CONSUMER_DEFINED"),
                ex.getMessage());
            leaks.assertNoQpLeft();
        }
        leaks.assertNone();
    }

    /** A listener whose process is stopped never answers the REQ: UNREACHABLE once the CM's REQ timeout expires. */
    @Test
    void silentPeerIsUnreachable() throws Throwable
    {
        final Leaks leaks = new Leaks();
        final int port = CmConnectionTest.freePort();
        final Process silent = stoppedListener(port);
        // the emulated kernel reads MLX5EMU_CM_TIMEOUT_MS with getenv when it arms a REQ timer
        EmulatedDevice.setenv("MLX5EMU_CM_TIMEOUT_MS", "1500");
        try (Endpoint client = new Endpoint())
        {
            final long t0 = System.nanoTime();
            final CmUnreachableException ex = assertThrows(CmUnreachableException.class, () -> CmConnection.connect(
                new InetSocketAddress("127.0.0.1", port), ConnectOptions.builder().timeout(T).build(), client::rc));
            final long took = System.nanoTime() - t0;
            assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(1400) && took < T.toNanos(), "took " + took);
            assertEquals(CmEventType.UNREACHABLE, ex.event());
            assertEquals(-110, ex.status());
            leaks.assertNoQpLeft();
            assertTrue(ex.getMessage().endsWith(": RDMA_CM_EVENT_UNREACHABLE, status -110 (-ETIMEDOUT)"),
                ex.getMessage());
        }
        finally
        {
            EmulatedDevice.unsetenv("MLX5EMU_CM_TIMEOUT_MS");
            silent.destroyForcibly();   // SIGKILL ends a stopped process too
            silent.waitFor(10, TimeUnit.SECONDS);
        }
        leaks.assertNone();
    }

    /** The same silent peer with the CM's own (long) timeout: the connect step's timeout ends it, cleanly. */
    @Test
    void connectTimeoutEndsTheWaitForASilentPeer() throws Exception
    {
        final Leaks leaks = new Leaks();
        final int port = CmConnectionTest.freePort();
        final Process silent = stoppedListener(port);
        try (Endpoint client = new Endpoint())
        {
            final long t0 = System.nanoTime();
            final CmTimeoutException ex = assertThrows(CmTimeoutException.class, () -> CmConnection.connect(
                new InetSocketAddress("127.0.0.1", port), ConnectOptions.builder().connectTimeout(SHORT).build(),
                client::rc));
            final long took = System.nanoTime() - t0;
            assertTrue(took >= SHORT.toNanos() && took < SHORT.toNanos() + TimeUnit.SECONDS.toNanos(2), "took " + took);
            assertEquals("connect to /127.0.0.1:" + port + ": no RDMA_CM_EVENT_ESTABLISHED within 1000 ms",
                ex.getMessage());
            assertEquals(SHORT, ex.timeout());
            leaks.assertNoQpLeft();
        }
        finally
        {
            silent.destroyForcibly();   // SIGKILL ends a stopped process too
            silent.waitFor(10, TimeUnit.SECONDS);
        }
        leaks.assertNone();
    }

    /** An unmodified rping client connects, then its process is killed: the survivor gets DISCONNECTED. */
    @Test
    void deadPeerDisconnects() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        try (Endpoint server = new Endpoint(); CmListener listener = CmListener.bind(address, 1))
        {
            final Process peer = new ChildProcess("rping-doomed-client", List.of("/usr/bin/rping", "-c", "-a",
                "127.0.0.1", "-p", "" + address.getPort(), "-C", "0")).process();
            try (CmConnection s = listener.awaitRequest(T).accept(server::rc, ConnectOptions.builder().timeout(T)
                .build(), qp ->
                {
                    // room for rping's first message; it then waits for an answer that never comes
                    final RecvQueue rq = RecvQueue.of(qp);
                    rq.post(1, server.buf.address(), server.mr.lkey(), 16);
                    rq.ring();
                }))
            {
                assertTrue(peer.isAlive());
                peer.destroyForcibly();
                assertTrue(peer.waitFor(10, TimeUnit.SECONDS));
                final long t0 = System.nanoTime();
                assertTrue(s.awaitDisconnected(T), "no DISCONNECTED after the peer died");
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "the death took long to notice");
            }
        }
        leaks.assertNone();
    }

    @Test
    void listenerWaitEndsAtItsTimeout() throws Exception
    {
        final Leaks leaks = new Leaks();
        try (CmListener listener = CmListener.bind(new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort()), 1))
        {
            final long t0 = System.nanoTime();
            final CmTimeoutException ex = assertThrows(CmTimeoutException.class,
                () -> listener.awaitRequest(Duration.ofMillis(300)));
            final long took = System.nanoTime() - t0;
            assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(300) && took < TimeUnit.SECONDS.toNanos(2),
                "took " + took);
            assertTrue(ex.getMessage().endsWith("no RDMA_CM_EVENT_CONNECT_REQUEST within 300 ms"), ex.getMessage());
        }
        leaks.assertNone();
    }

    /** A failing librdmacm call names the call and errno: binding an address no device owns. */
    @Test
    void failingCallNamesCallAndErrno() throws Exception
    {
        final Leaks leaks = new Leaks();
        final CmCallException ex = assertThrows(CmCallException.class,
            () -> CmListener.bind(new InetSocketAddress("192.0.2.1", 7471), 1));
        assertEquals("rdma_bind_addr", ex.call());
        assertTrue(ex.errno() > 0);
        assertTrue(ex.getMessage().startsWith("bind /192.0.2.1:7471: rdma_bind_addr failed: errno "), ex.getMessage());
        leaks.assertNone();
    }

    /**
     * Multicast on a datagram id: the join completes with MULTICAST_JOIN carrying the multicast QPN (0xffffff, as
     * the kernel's cma reports it) and no error status, and leaving the group afterwards succeeds.
     */
    @Test
    void multicastJoinCompletesWithTheGroupsQpn() throws Exception
    {
        final Leaks leaks = new Leaks();
        try (EventChannel channel = EventChannel.create())
        {
            final CmId id = channel.createId(PortSpace.UDP);
            id.bind(new InetSocketAddress("127.0.0.1", 0));
            final InetAddress group = InetAddress.getByName("239.1.2.3");
            id.joinMulticast(group);
            final List<CmEvent> events = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (events.isEmpty() && System.nanoTime() < deadline)
            {
                channel.poll(events::add, 1, Duration.ofMillis(100));
            }
            assertEquals(1, events.size(), "one event within 10 s");
            final CmEvent joined = events.get(0);
            assertEquals(CmEventType.MULTICAST_JOIN, joined.type(), joined.toString());
            assertEquals(0, joined.status(), joined.toString());
            assertEquals(0xffffff, joined.qpNum(), joined.toString());
            id.leaveMulticast(group);
        }
        leaks.assertNone();
    }

    // ---------------------------------------------------------------------------------------------- plumbing

    /** An unmodified rping server listening on {@code port}, then stopped (SIGSTOP): its CM answers nothing. */
    private static Process stoppedListener(final int port) throws Exception
    {
        final Process p = new ChildProcess("rping-silent-server-" + port, List.of("/usr/bin/rping", "-s", "-a",
            "127.0.0.1", "-p", "" + port)).process();
        // wait until it listens
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!listening(port))
        {
            if (!p.isAlive())
            {
                fail("rping -s exited with " + p.exitValue()
                    + " before it listened; see target/interop/rping-silent-*");
            }
            assertTrue(System.nanoTime() < deadline, "rping -s never listened");
            Thread.sleep(50);
        }
        signal("STOP", p.pid());
        return p;
    }

    /**
     * Whether the fabric has a listener on {@code port}. Asked of the emulator's directory rather than probed with a
     * bind of our own: a probing bind holds the port for a moment, and rping's bind landing in that moment fails with
     * EADDRINUSE and ends rping (seen once in CI).
     */
    private static boolean listening(final int port)
    {
        return EmulatedDevice.cmListeners(EmulatedDevice.RDMA_PS_TCP, port) > 0;
    }

    private static void signal(final String signal, final long pid) throws Exception
    {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, "" + pid).start().waitFor());
    }
}
