// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The next hop and its MAC from tables in the kernel's exact text formats (copied from a Linux 6.1 host). */
class NeighboursTest
{
    private static final String ROUTE = String.join("\n",
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
        "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0",
        "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        "ens1f0\t0000010A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0",
        "ens1f0\t0007010A\t0100010A\t0003\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        "ens1f1\t0000020A\t00000000\t0000\t0\t0\t0\t0000FFFF\t0\t0\t0",
        "");
    private static final String ARP = String.join("\n",
        "IP address       HW type     Flags       HW address            Mask     Device",
        "192.0.2.1        0x1         0x2         02:fc:00:00:00:05     *        eth0",
        "10.1.0.9         0x1         0x2         b8:ce:f6:01:02:03     *        ens1f0",
        "10.1.0.1         0x1         0x2         b8:ce:f6:0a:0b:0c     *        ens1f0",
        "10.1.0.7         0x1         0x0         00:00:00:00:00:00     *        ens1f0",
        "10.1.0.9         0x1         0x2         aa:aa:aa:aa:aa:aa     *        eth0",
        "");

    @Test
    void anOnLinkDestinationIsItsOwnNextHop()
    {
        final Neighbours.Hop h = Neighbours.resolve(ROUTE, ARP, 0x0a010009);
        assertEquals(new Neighbours.Hop("ens1f0", 0x0a010009, 0xb8cef6010203L), h);
        assertEquals("10.1.0.9 at b8:ce:f6:01:02:03 on ens1f0", h.toString());
    }

    @Test
    void aLongerPrefixWinsAndItsGatewayIsTheNextHop()
    {
        // 10.1.7.0/24 via 10.1.0.1 beats the on-link 10.1.0.0/16
        assertEquals(new Neighbours.Hop("ens1f0", 0x0a010001, 0xb8cef60a0b0cL), Neighbours.resolve(ROUTE, ARP,
            0x0a010742));
    }

    @Test
    void theDefaultRouteTakesWhatNothingElseMatches()
    {
        assertEquals(new Neighbours.Hop("eth0", 0xc0000201, 0x02fc00000005L), Neighbours.resolve(ROUTE, ARP,
            0x08080808));
    }

    @Test
    void anIncompleteEntryIsAnErrorThatSaysHowToResolveIt()
    {
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> Neighbours.resolve(ROUTE, ARP, 0x0a010007));
        assertEquals("the next hop 10.1.0.7 towards 10.1.0.7 on ens1f0 has no resolved neighbour entry "
            + "(/proc/net/arp); send it any packet through the kernel first (ping 10.1.0.7) or add one (ip neigh add "
            + "10.1.0.7 lladdr MAC dev ens1f0)", e.getMessage());
    }

    @Test
    void aRouteThatIsNotUpAndNoDefaultMeansNoRoute()
    {
        final String noDefault = ROUTE.lines().filter(l -> !l.contains("\t00000000\t010200C0"))
            .reduce("", (a, b) -> a + b + "\n");
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> Neighbours.resolve(noDefault, ARP, 0x0a020001));
        assertEquals("no IPv4 route to 10.2.0.1 (/proc/net/route)", e.getMessage());
    }
}
