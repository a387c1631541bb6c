// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.verbs.Gid;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * io.mlx5j.cm on the Ethernet-link emulated device (surefire's "roce" execution): addresses resolve to the port's
 * RoCEv2 GIDs (IPv4-mapped for IPv4, as the kernel's GID table holds them), and the CM's RTR attributes carry the
 * GRH the QPs route by.
 */
@Tag("roce")
class CmRoceTest
{
    @Test
    void connectAcceptTrafficDisconnect() throws Exception
    {
        CmConnectionTest.connectAcceptTrafficDisconnect("127.0.0.1");
        CmConnectionTest.connectAcceptTrafficDisconnect("::1");
    }

    @Test
    void ipv4ResolvesToTheMappedGid() throws Exception
    {
        try (EventChannel channel = EventChannel.create())
        {
            final CmId id = channel.createId(PortSpace.TCP);
            id.resolveAddress(null, new InetSocketAddress("127.0.0.1", 7471), Duration.ofSeconds(2));
            id.expect("resolve", CmEventType.ADDR_RESOLVED, Duration.ofSeconds(10));
            // ::ffff:127.0.0.1 (RFC 4291 IPv4-mapped), the RoCEv2 GID of an IPv4 address
            final Gid mapped = new Gid(0, 0x0000ffff7f000001L);
            assertEquals(mapped, id.sourceGid());
            assertEquals(mapped, id.destinationGid());
        }
    }
}
