// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.QpState;
import io.mlx5j.verbs.QpType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The datagram port space (RDMA_PS_UDP): a SIDR exchange resolves the peer's UD QP. The active side's ESTABLISHED
 * carries an address vector, QPN and Q_Key; a UD SEND through an AddressHandle made from them reaches the passive
 * side's QP, which the accept readied with the CM's Q_Key.
 */
class CmDatagramTest
{
    private static final Duration T = Duration.ofSeconds(10);
    private static final int GRH = 40;

    @Test
    void sidrResolvesThePeersUdQpAndASendArrives() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        final byte[] hello = "sidr hello".getBytes(StandardCharsets.US_ASCII);
        final RecvQueue[] serverRq = new RecvQueue[1];
        try (Endpoint server = new Endpoint(); Endpoint client = new Endpoint();
             EventChannel channel = EventChannel.create();
             CmListener listener = CmListener.bind(channel, PortSpace.UDP, address, 4))
        {
            final CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(() ->
            {
                final ConnectionRequest request = listener.awaitRequest(T);
                assertArrayEquals(hello, Arrays.copyOf(request.privateData(), hello.length));
                return request.accept(id -> server.create(id, QpType.UD), ConnectOptions.builder().timeout(T).build(),
                    qp ->
                    {
                        serverRq[0] = RecvQueue.of(qp);
                        serverRq[0].post(9, server.buf.address(), server.mr.lkey(), GRH + 256);
                        serverRq[0].ring();
                    });
            });
            try (EventChannel clientChannel = EventChannel.create();
                 CmConnection c = CmConnection.connect(clientChannel, PortSpace.UDP, address,
                     ConnectOptions.builder().privateData(hello).timeout(T).build(),
                     id -> client.create(id, QpType.UD));
                 CmConnection s = accepted.get(20, TimeUnit.SECONDS))
            {
                assertEquals(QpState.RTS, c.qp().state());
                assertEquals(QpState.RTS, s.qp().state());
                final CmEvent established = c.establishedEvent();
                assertEquals(CmEventType.ESTABLISHED, established.type());
                assertEquals(s.qp().qpn(), established.qpNum(), "SIDR reply names the passive UD QP");
                assertEquals(io.mlx5j.bindings.RdmaCmId.RDMA_UDP_QKEY, established.qkey());
                assertNotNull(established.addressVector());
                try (AddressHandle ah = client.pd.createAh(established.addressVector()))
                {
                    final SendQueue sq = SendQueue.of(c.qp(), DoorbellMode.AUTO);
                    final CqPoller ccq = CqPoller.of(client.cq).attach(sq);
                    final CqPoller scq = CqPoller.of(server.cq).attach(serverRq[0]);
                    final byte[] text = "a datagram to the QP rdma_cm found".getBytes(StandardCharsets.US_ASCII);
                    MemorySegment.copy(text, 0, client.buf, ValueLayout.JAVA_BYTE, 0, text.length);
                    final Completion wc = new Completion();
                    assertEquals(true, sq.udSend(1, ah, established.qpNum(), established.qkey(), client.buf.address(),
                        client.mr.lkey(), text.length, SendFlags.SIGNALED | SendFlags.RING));
                    CmConnectionTest.await(ccq, wc, 1);
                    CmConnectionTest.await(scq, wc, 9);
                    assertEquals(GRH + text.length, wc.byteLen());
                    assertEquals(c.qp().qpn(), wc.srcQp());
                    assertArrayEquals(text, server.buf.asSlice(GRH, text.length).toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        leaks.assertNone();
    }
}
