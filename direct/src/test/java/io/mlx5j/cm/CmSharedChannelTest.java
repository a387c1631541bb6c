// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several connections through one listener, hence one event channel, as ucmatose runs them: each accepted
 * connection waits only for its own events while the others' are queued for them, whichever thread reads them.
 */
class CmSharedChannelTest
{
    private static final Duration T = Duration.ofSeconds(20);
    private static final int N = 4;

    @Test
    void connectionsSharingTheListenersChannelEachSeeTheirOwnEvents() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        final List<Endpoint> endpoints = new ArrayList<>();
        try (CmListener listener = CmListener.bind(address, N))
        {
            final List<CompletableFuture<CmConnection>> clients = new ArrayList<>();
            for (int i = 0; i < N; i++)
            {
                final Endpoint e = new Endpoint();
                endpoints.add(e);
                final byte[] name = ("client " + i).getBytes(StandardCharsets.US_ASCII);
                clients.add(CompletableFuture.supplyAsync(() -> CmConnection.connect(address,
                    ConnectOptions.builder().privateData(name).timeout(T).build(), e::rc)));
            }
            final List<CmConnection> accepted = new ArrayList<>();
            final Set<String> names = new HashSet<>();
            for (int i = 0; i < N; i++)
            {
                final ConnectionRequest request = listener.awaitRequest(T);
                names.add(new String(request.privateData(), StandardCharsets.US_ASCII).trim());
                final Endpoint e = new Endpoint();
                endpoints.add(e);
                accepted.add(request.accept(e::rc, ConnectOptions.builder().timeout(T).build()));
            }
            assertEquals(Set.of("client 0", "client 1", "client 2", "client 3"), names);
            final List<CmConnection> active = new ArrayList<>();
            for (final CompletableFuture<CmConnection> c : clients)
            {
                active.add(c.get(30, TimeUnit.SECONDS));
            }
            // every passive connection waits for its own DISCONNECTED on the shared channel, concurrently
            final List<CompletableFuture<Boolean>> waits = new ArrayList<>();
            for (final CmConnection s : accepted)
            {
                waits.add(CompletableFuture.supplyAsync(() -> s.awaitDisconnected(T)));
            }
            for (final CmConnection c : active)
            {
                c.disconnect(T);
                c.close();
            }
            for (final CompletableFuture<Boolean> w : waits)
            {
                assertTrue(w.get(30, TimeUnit.SECONDS), "a passive connection missed its DISCONNECTED");
            }
            for (final CmConnection s : accepted)
            {
                assertTrue(s.isDisconnected());
                s.close();
            }
            assertTrue(listener.id().channel().ids.size() == 1, "only the listening id is left on the channel");
        }
        finally
        {
            for (final Endpoint e : endpoints)
            {
                e.close();
            }
        }
        leaks.assertNone();
    }
}
