// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;

import java.net.InetSocketAddress;
import java.time.Duration;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * The example of docs/rdma-cm.md ("Connecting with rdma_cm"), verbatim between the markers: ReadmeExampleTest checks
 * that the guide shows exactly these lines and runs them.
 */
final class ReadmeExample
{
    private ReadmeExample()
    {
    }

    // guide:begin
    static String serve(int port) {
        try (Context ctx = Context.open("mlx5_0"); ProtectionDomain pd = ctx.allocPd();
             CompletionQueue cq = ctx.createCq(256);
             CmListener listener = CmListener.bind(new InetSocketAddress("127.0.0.1", port), 8)) {
            ConnectionRequest request = listener.awaitRequest(Duration.ofSeconds(30));
            String hello = new String(request.privateData(), US_ASCII).trim();
            try (CmConnection conn = request.accept(id -> pd.createQp(QpConfig.builder(QpType.RC, cq).build()),
                     ConnectOptions.builder().privateData("welcome".getBytes(US_ASCII)).build())) {
                conn.awaitDisconnected(Duration.ofSeconds(30));     // the peer's DISCONNECTED (or its death)
            }
            return hello;
        }
    }

    static String connect(int port) {
        ConnectOptions options = ConnectOptions.builder().privateData("hello".getBytes(US_ASCII))
            .responderResources(4).initiatorDepth(4).retryCount(7).rnrRetryCount(7)
            .addressTimeout(Duration.ofSeconds(2)).routeTimeout(Duration.ofSeconds(2))
            .connectTimeout(Duration.ofSeconds(5)).build();
        try (Context ctx = Context.open("mlx5_0"); ProtectionDomain pd = ctx.allocPd();
             CompletionQueue cq = ctx.createCq(256);
             CmConnection conn = CmConnection.connect(new InetSocketAddress("127.0.0.1", port), options,
                 id -> pd.createQp(QpConfig.builder(QpType.RC, cq).build()))) {
            SendQueue sq = SendQueue.of(conn.qp(), DoorbellMode.AUTO);  // RTS: post right away
            String reply = new String(conn.peerPrivateData(), US_ASCII).trim();
            conn.disconnect(Duration.ofSeconds(5));
            return reply + " " + sq.qpn();
        } catch (CmRejectedException e) {         // REJECTED: e.reason() 8 = no listener, 28 = rdma_reject
            return "rejected " + e.reason();
        } catch (CmException e) {                 // ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, a step's timeout ...
            return e.getMessage();                // names the step, the CM event and its status
        }
    }
    // guide:end
}
