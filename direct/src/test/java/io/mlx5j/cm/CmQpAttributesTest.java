// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.testkit.EmulatedDevice;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The connection parameters reach the QPs as the IB CM defines them, read back from the emulated kernel's own
 * record of each QP (what ibv_modify_qp actually carried): responder resources become the local
 * max_dest_rd_atomic and initiator depth max_rd_atomic; both QPs retry the requester's retry count; each side's RNR
 * retry is what the other side asked for (REQ to the passive QP, REP to the active one); the ACK timeout option
 * sets the active QP's timeout.
 */
class CmQpAttributesTest
{
    private static final Duration T = Duration.ofSeconds(10);

    @Test
    void parametersLandInTheQps() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", CmConnectionTest.freePort());
        try (Endpoint server = new Endpoint(); Endpoint client = new Endpoint();
             CmListener listener = CmListener.bind(address, 1))
        {
            final CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(() ->
            {
                final ConnectionRequest request = listener.awaitRequest(T);
                assertEquals(5, request.retryCount());
                assertEquals(4, request.rnrRetryCount());
                return request.accept(server::rc, ConnectOptions.builder().responderResources(2).initiatorDepth(3)
                    .rnrRetryCount(6).timeout(T).build());
            });
            try (CmConnection c = CmConnection.connect(address, ConnectOptions.builder().responderResources(3)
                     .initiatorDepth(2).retryCount(5).rnrRetryCount(4).ackTimeout(15).timeout(T).build(), client::rc);
                 CmConnection s = accepted.get(20, TimeUnit.SECONDS))
            {
                final Map<String, Long> cq = EmulatedDevice.qp(c.qp().qpn());
                final Map<String, Long> sq = EmulatedDevice.qp(s.qp().qpn());
                assertEquals(3L, cq.get("max_dest_rd_atomic"), "client responder resources");
                assertEquals(2L, cq.get("max_rd_atomic"), "client initiator depth");
                assertEquals(2L, sq.get("max_dest_rd_atomic"), "server responder resources");
                assertEquals(3L, sq.get("max_rd_atomic"), "server initiator depth");
                assertEquals(5L, cq.get("retry_cnt"));
                assertEquals(5L, sq.get("retry_cnt"));
                assertEquals(6L, cq.get("rnr_retry"), "the active QP retries RNR as the REP asked");
                assertEquals(4L, sq.get("rnr_retry"), "the passive QP retries RNR as the REQ asked");
                assertEquals(15L, cq.get("timeout"), "RDMA_OPTION_ID_ACK_TIMEOUT");
                assertEquals((long) s.qp().qpn(), cq.get("dest_qp_num"));
                assertEquals((long) c.qp().qpn(), sq.get("dest_qp_num"));
            }
        }
        leaks.assertNone();
    }
}
