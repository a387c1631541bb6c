// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.oob;

import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.PeerInfo;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exchange over real loopback TCP against scripted peers that behave like the C examples: one write() of each
 * message, one read() per message checked for the exact count (rc_pingpong.c pp_*_exch_dest).
 */
class PingpongExchangeTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final PeerInfo JAVA = PeerInfo.of(0x0001, 0x000105, 0x3a2b1c, Gid.ZERO);
    private static final String C_ADDRESS = "0001:106004:80f02e:00000000000000000000000000000000\0";

    @Test
    void javaServerAgainstAnExampleStyleClient() throws Exception
    {
        try (OobServer server = OobServer.listen(0))
        {
            final AtomicLong connectedAt = new AtomicLong();
            final AtomicReference<PeerInfo> seenByConnect = new AtomicReference<>();
            final CompletableFuture<PeerInfo> result = CompletableFuture.supplyAsync(() ->
            {
                try (OobConnection c = server.accept(TIMEOUT))
                {
                    return PingpongExchange.server(c, JAVA, remote ->
                    {
                        seenByConnect.set(remote);
                        sleep(100); // a slow modify_qp: the reply must still come after it
                        connectedAt.set(System.nanoTime());
                    });
                }
            });
            try (Socket s = new Socket("localhost", server.port()))
            {
                final OutputStream out = s.getOutputStream();
                final InputStream in = s.getInputStream();
                out.write(ascii(C_ADDRESS));
                final byte[] reply = new byte[52];
                assertEquals(52, readOnce(in, reply), "the server's address must arrive as one 52-byte message");
                final long repliedAt = System.nanoTime();
                assertArrayEquals(ascii("0001:000105:3a2b1c:00000000000000000000000000000000\0"), reply);
                out.write(ascii("done\0"));
                assertEquals(PeerInfo.of(1, 0x106004, 0x80f02e, Gid.ZERO), result.get(10, TimeUnit.SECONDS));
                assertEquals(result.get(), seenByConnect.get());
                assertTrue(repliedAt > connectedAt.get(), "the server connects its QP before it answers");
                assertEquals(-1, in.read(), "the server closes after done");
            }
        }
    }

    @Test
    void javaClientAgainstAnExampleStyleServer() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0))
        {
            final CompletableFuture<PeerInfo> result = CompletableFuture.supplyAsync(() ->
            {
                try (OobConnection c = OobConnection.connect("localhost", listener.getLocalPort(), TIMEOUT))
                {
                    return PingpongExchange.client(c, JAVA);
                }
            });
            try (Socket s = listener.accept())
            {
                final byte[] msg = new byte[52];
                assertEquals(52, readOnce(s.getInputStream(), msg));
                assertArrayEquals(ascii("0001:000105:3a2b1c:00000000000000000000000000000000\0"), msg);
                s.getOutputStream().write(ascii(C_ADDRESS));
                // the server reads sizeof msg bytes but requires exactly sizeof "done" of them
                final byte[] done = new byte[52];
                assertEquals(5, readOnce(s.getInputStream(), done));
                assertArrayEquals(ascii("done\0"), java.util.Arrays.copyOf(done, 5));
                assertEquals(PeerInfo.of(1, 0x106004, 0x80f02e, Gid.ZERO), result.get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void twoJavaPeersExchangeBuffersAndMeetAtBarriers() throws Exception
    {
        final PeerInfo serverInfo = PeerInfo.of(1, 0x200, 0x11, Gid.ZERO).withBuffer(0x1234, 0x7000_0000L, 4096);
        final PeerInfo clientInfo = PeerInfo.of(1, 0x300, 0x22, Gid.ZERO).withBuffer(0x5678, 0x7100_0000L, 8192);
        try (OobServer server = OobServer.listen(0))
        {
            final CompletableFuture<PeerInfo> serverSide = CompletableFuture.supplyAsync(() ->
            {
                try (OobConnection c = server.accept(TIMEOUT))
                {
                    final PeerInfo remote = PingpongExchange.server(c, serverInfo, r -> { });
                    final PeerInfo full = PingpongExchange.exchangeBuffers(c, false, serverInfo, remote);
                    PingpongExchange.barrier(c, "start");
                    return full;
                }
            });
            try (OobConnection c = OobConnection.connect("localhost", server.port(), TIMEOUT))
            {
                final PeerInfo remote = PingpongExchange.client(c, clientInfo);
                assertEquals(PeerInfo.of(1, 0x200, 0x11, Gid.ZERO), remote);
                assertEquals(serverInfo, PingpongExchange.exchangeBuffers(c, true, clientInfo, remote));
                PingpongExchange.barrier(c, "start");
            }
            assertEquals(clientInfo, serverSide.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aWrongDoneIsAnError() throws Exception
    {
        try (OobServer server = OobServer.listen(0))
        {
            final CompletableFuture<PeerInfo> result = CompletableFuture.supplyAsync(() ->
            {
                try (OobConnection c = server.accept(TIMEOUT))
                {
                    return PingpongExchange.server(c, JAVA, r -> { });
                }
            });
            try (Socket s = new Socket("localhost", server.port()))
            {
                s.getOutputStream().write(ascii(C_ADDRESS));
                readOnce(s.getInputStream(), new byte[52]);
                s.getOutputStream().write(ascii("nope\0"));
                final Exception ex = assertThrows(Exception.class, () -> result.get(10, TimeUnit.SECONDS));
                assertTrue(ex.getCause() instanceof IllegalStateException, String.valueOf(ex.getCause()));
                assertTrue(ex.getCause().getMessage().contains("done"), ex.getCause().getMessage());
            }
        }
    }

    @Test
    void aPeerThatHangsUpMidMessageIsNamed() throws Exception
    {
        try (OobServer server = OobServer.listen(0))
        {
            final CompletableFuture<PeerInfo> result = CompletableFuture.supplyAsync(() ->
            {
                try (OobConnection c = server.accept(TIMEOUT))
                {
                    return PingpongExchange.server(c, JAVA, r -> { });
                }
            });
            try (Socket s = new Socket("localhost", server.port()))
            {
                s.getOutputStream().write(ascii("0001:106004"));
            }
            final Exception ex = assertThrows(Exception.class, () -> result.get(10, TimeUnit.SECONDS));
            assertTrue(ex.getCause() instanceof UncheckedIOException, String.valueOf(ex.getCause()));
            assertTrue(ex.getCause().getMessage().contains("11 of the 52 bytes"), ex.getCause().getMessage());
        }
    }

    @Test
    void readsAndConnectsTimeOut() throws Exception
    {
        final int port;
        try (ServerSocket probe = new ServerSocket(0))
        {
            port = probe.getLocalPort();
        }
        final UncheckedIOException refused = assertThrows(UncheckedIOException.class,
            () -> OobConnection.connect("localhost", port, Duration.ofMillis(300)));
        assertTrue(refused.getMessage().contains("within 300 ms"), refused.getMessage());
        try (OobServer server = OobServer.listen(0);
             Socket silent = new Socket("localhost", server.port());
             OobConnection c = server.accept(Duration.ofMillis(300)))
        {
            final UncheckedIOException ex = assertThrows(UncheckedIOException.class,
                () -> c.receive(PingpongWire.ADDRESS_BYTES, "client address"));
            assertTrue(ex.getMessage().contains("in time"), ex.getMessage());
            assertTrue(silent.isConnected());
        }
    }

    private static int readOnce(final InputStream in, final byte[] into) throws Exception
    {
        // like the examples: a single read(), but give a split segment a moment to complete on a busy machine
        int got = in.read(into);
        while (got > 0 && got < into.length && in.available() > 0)
        {
            got += in.read(into, got, into.length - got);
        }
        return got;
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
