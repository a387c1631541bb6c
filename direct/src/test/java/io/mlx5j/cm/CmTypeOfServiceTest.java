// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.verbs.AddressVector;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ConnectOptions.typeOfService} (RDMA_OPTION_ID_TOS) reaches the QPs of the connection as Linux's rdma_cm
 * puts it (drivers/infiniband/core/cma.c; the emulator's ucma.c path_tclass): on RoCE the route's traffic class, so
 * the GRH traffic class of both QPs (the passive one takes it from the REQ's path, not from its listener), with SL 0;
 * on IB only the path query's QoS class, which the SM without a QoS policy answers with SL 0, and no GRH inside the
 * subnet. Read back from libibverbs ({@code ibv_query_qp}, {@link io.mlx5j.verbs.QueuePair#addressVector}). IB
 * here, RoCE in {@link CmTypeOfServiceRoceTest}.
 */
class CmTypeOfServiceTest
{
    private static final Duration T = Duration.ofSeconds(10);
    private static final int TOS = 0x88;   // DSCP 34 (AF41) << 2

    @Test
    void typeOfServiceBecomesTheTrafficClassOfBothQps() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        try (Endpoint server = new Endpoint(); Endpoint client = new Endpoint();
             CmListener listener = CmListener.bind(address, 1))
        {
            final CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(() ->
                listener.awaitRequest(T).accept(server::rc, ConnectOptions.builder().timeout(T).build()));
            try (CmConnection c = CmConnection.connect(address, ConnectOptions.builder().typeOfService(TOS)
                     .timeout(T).build(), client::rc);
                 CmConnection s = accepted.get(20, TimeUnit.SECONDS))
            {
                final boolean roce = client.context.queryPort(1).isEthernet();
                final AddressVector active = c.qp().addressVector();
                final AddressVector passive = s.qp().addressVector();
                for (final AddressVector av : new AddressVector[] {active, passive})
                {
                    assertEquals(0, av.sl(), av.toString());
                    if (roce)
                    {
                        assertTrue(av.global(), av.toString());
                        assertEquals(TOS, av.trafficClass(), av.toString());
                    }
                    else
                    {
                        assertFalse(av.global(), av.toString());
                        assertEquals(0, av.trafficClass(), av.toString());
                    }
                }
            }
        }
        leaks.assertNone();
    }

    @Test
    void withoutTheOptionTheTrafficClassIsZero() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        try (Endpoint server = new Endpoint(); Endpoint client = new Endpoint();
             CmListener listener = CmListener.bind(address, 1))
        {
            final CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(() ->
                listener.awaitRequest(T).accept(server::rc, ConnectOptions.builder().timeout(T).build()));
            try (CmConnection c = CmConnection.connect(address, ConnectOptions.builder().timeout(T).build(),
                     client::rc);
                 CmConnection s = accepted.get(20, TimeUnit.SECONDS))
            {
                assertEquals(0, c.qp().addressVector().trafficClass());
                assertEquals(0, s.qp().addressVector().trafficClass());
            }
        }
        leaks.assertNone();
    }
}
