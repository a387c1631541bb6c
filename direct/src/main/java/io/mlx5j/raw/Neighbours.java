// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The destination MAC address for a unicast IPv4 destination, from the kernel's tables: the next hop by the IPv4
 * routing table ({@code /proc/net/route}: the longest matching prefix; its gateway, or the destination itself when
 * the route is on-link), then that hop's link-layer address from the neighbour table ({@code /proc/net/arp}, entries
 * the kernel marks complete, ATF_COM 0x2). A raw QP bypasses the kernel's IP stack, so a frame to a unicast IP needs
 * the MAC of whatever the kernel would have sent it to; this is the look-up the kernel does, read, not done: an
 * address the kernel has not resolved yet is an error that says how to make it resolve (a ping, or any traffic
 * through the kernel), never a guessed or broadcast MAC.
 * <p>
 * Control path: each call reads the two files (a few hundred bytes) and allocates. Resolve before the hot loop and
 * keep the answer in the frame's header template; neighbours change rarely, and a changed MAC is the operator's
 * event to act on (re-resolve on a timer if the path can move).
 * <p>
 * Both files give IPv4 only; an IPv6 neighbour needs netlink (RTM_GETNEIGH) and is not read here.
 */
public final class Neighbours
{
    private static final Path ROUTE = Path.of("/proc/net/route");
    private static final Path ARP = Path.of("/proc/net/arp");
    private static final int ATF_COM = 0x2;         // include/uapi/linux/if_arp.h: completed entry
    private static final int RTF_UP = 0x1;          // include/uapi/linux/route.h
    private static final int RTF_GATEWAY = 0x2;

    private Neighbours()
    {
    }

    /**
     * A resolved destination: the interface to send on, the next hop's IPv4 address and its MAC.
     *
     * @param device  the kernel's interface name for the route (e.g. {@code eth0})
     * @param nextHop the gateway, or the destination itself when on-link; host order, {@code 10.0.0.1} is
     *                {@code 0x0a000001}
     * @param mac     the next hop's MAC as a 48-bit number, the first wire byte most significant (as
     *                {@link FlowRule.Builder#ethDst(long)} takes it)
     */
    public record Hop(String device, int nextHop, long mac)
    {
        @Override
        public String toString()
        {
            return FlowRule.ipString(nextHop) + " at " + FlowRule.macString(mac) + " on " + device;
        }
    }

    /**
     * The next hop towards {@code ipv4} (host order, {@code 10.0.0.1} is {@code 0x0a000001}) and its MAC.
     *
     * Reads the files on every call; any thread may call it.
     *
     * @param ipv4 the destination address
     * @return the interface, next hop and MAC to put in the frame
     * @throws IllegalStateException when no route leads to it, or the next hop has no complete neighbour entry
     * @throws UncheckedIOException when the kernel's tables cannot be read
     */
    public static Hop resolve(final int ipv4)
    {
        return resolve(read(ROUTE), read(ARP), ipv4);
    }

    /** {@link #resolve(int)} over the given contents of {@code /proc/net/route} and {@code /proc/net/arp}. */
    static Hop resolve(final String routeTable, final String arpTable, final int ipv4)
    {
        String device = null;
        int hop = 0;
        int bestPrefix = -1;
        final String[] lines = routeTable.split("\n");
        // Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT; addresses in hex, network order
        // printed as a host-order (little-endian) word
        for (int i = 1; i < lines.length; i++)
        {
            final String[] f = lines[i].trim().split("\\s+");
            if (f.length < 8)
            {
                continue;
            }
            final int dest = Integer.reverseBytes(Integer.parseUnsignedInt(f[1], 16));
            final int gateway = Integer.reverseBytes(Integer.parseUnsignedInt(f[2], 16));
            final int flags = Integer.parseInt(f[3], 16);
            final int mask = Integer.reverseBytes(Integer.parseUnsignedInt(f[7], 16));
            final int prefix = Integer.bitCount(mask);
            if ((flags & RTF_UP) != 0 && (ipv4 & mask) == dest && prefix > bestPrefix)
            {
                bestPrefix = prefix;
                device = f[0];
                hop = (flags & RTF_GATEWAY) != 0 ? gateway : ipv4;
            }
        }
        if (device == null)
        {
            throw new IllegalStateException("no IPv4 route to " + FlowRule.ipString(ipv4) + " (/proc/net/route)");
        }
        final String[] arp = arpTable.split("\n");
        // IP address, HW type, Flags, HW address, Mask, Device
        for (int i = 1; i < arp.length; i++)
        {
            final String[] f = arp[i].trim().split("\\s+");
            if (f.length < 6 || !f[5].equals(device) || parseIp(f[0]) != hop)
            {
                continue;
            }
            if ((Integer.decode(f[2]) & ATF_COM) == 0)
            {
                break;
            }
            return new Hop(device, hop, parseMac(f[3]));
        }
        final String h = FlowRule.ipString(hop);
        throw new IllegalStateException("the next hop " + h + " towards " + FlowRule.ipString(ipv4) + " on " + device
            + " has no resolved neighbour entry (/proc/net/arp); send it any packet through the kernel first "
            + "(ping " + h + ") or add one (ip neigh add " + h + " lladdr MAC dev " + device + ")");
    }

    private static String read(final Path p)
    {
        try
        {
            return Files.readString(p);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read the kernel's table " + p, e);
        }
    }

    private static int parseIp(final String s)
    {
        final String[] p = s.split("\\.");
        if (p.length != 4)
        {
            return 0;
        }
        int v = 0;
        for (final String b : p)
        {
            v = v << 8 | Integer.parseInt(b);
        }
        return v;
    }

    private static long parseMac(final String s)
    {
        long v = 0;
        for (final String b : s.split(":"))
        {
            v = v << 8 | Integer.parseInt(b, 16);
        }
        return v;
    }
}
