// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The frame perftest's raw Ethernet tools send, built the way they build it (perftest v4.5-0.17
 * src/raw_ethernet_resources.c build_pkt_on_buffer, gen_eth_header, gen_ipv4_header, gen_udp_header,
 * gen_tcp_header), so that an mlx5j side and a perftest side send byte-identical headers:
 * <pre>
 *  0  destination MAC (-E) | 6 source MAC (-B) | 12 type: -Y if given, else 0x0800 with an IP header, else the
 *                                                   802.3 length size - 18 (RAWETH_ADDITION)
 * 14  IPv4 (when -J or -j is given): version 4, IHL 5, TOS 0, total length size - 18, id 0, flags/fragment 0,
 *     TTL 64 (DEF_HOP_LIMIT), protocol 17/6 with ports else 0, header checksum, source, destination
 * 34  UDP (when -K and -k are given): source port, destination port, length size - 18 - 20, checksum 0
 *     or TCP (--tcp): ports, sequence 0, ack 0, data offset 5, flags 0, window 8192, checksum 0, urgent 0
 *  .. payload up to the frame's length
 * </pre>
 * {@code size} is perftest's {@code -s}: the frame including its 4-byte FCS, which the NIC appends, so the bytes
 * posted are {@code size - 4} (HW_CRC_ADDITION). Addresses are role-based as in perftest: {@code -J}/{@code -K} are
 * the server's IP and port, {@code -j}/{@code -k} the client's, and both sides get the same values; the server
 * sends from the server's address to the client's and the client the other way round.
 * <p>
 * The payload after the headers is perftest's random bytes on a perftest side; an mlx5j side writes {@link #MAGIC}
 * followed by a byte pattern, so an mlx5j receiver checks whole frames from an mlx5j sender and headers only from
 * perftest.
 */
final class RawFrame
{
    /** RAWETH_ADDITION: Ethernet header (14) + FCS (4). */
    static final int RAWETH_ADDITION = 18;
    /** HW_CRC_ADDITION: the FCS the NIC appends. */
    static final int FCS = 4;
    static final int ETH_HLEN = 14;
    static final int IP_HLEN = 20;
    static final int UDP_HLEN = 8;
    static final int TCP_HLEN = 20;
    static final int ETH_P_IP = 0x0800;
    static final int IPPROTO_UDP = 17;
    static final int IPPROTO_TCP = 6;
    /** DEF_HOP_LIMIT: the IPv4 TTL perftest writes. */
    static final int TTL = 64;
    /** First payload bytes of an mlx5j frame: "mlx5jraw", big-endian. */
    static final long MAGIC = 0x6d6c78356a726177L;

    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RawFrame()
    {
    }

    /** Header bytes of a frame under these options: 14, 34, 42 (UDP) or 54 (TCP). */
    static int headerLength(final PerfOptions o)
    {
        final RawOptions r = o.raw();
        return ETH_HLEN + (r.hasIp() ? IP_HLEN + (r.hasPorts() ? (r.tcp() ? TCP_HLEN : UDP_HLEN) : 0) : 0);
    }

    /** Bytes posted (and received) per frame: {@code size - 4}. */
    static int wireLength(final PerfOptions o)
    {
        return o.size() - FCS;
    }

    /**
     * Writes the whole frame {@code fromServer} sends (the server's frame when true, the client's when false) at
     * {@code at}: headers, then {@link #MAGIC} and the pattern when the payload has room for them.
     */
    static void write(final MemorySegment buf, final long at, final PerfOptions o, final boolean fromServer)
    {
        final RawOptions r = o.raw();
        final int length = wireLength(o);
        final int hdr = headerLength(o);
        // MAC addresses as the sender sees them: its own -B is the source; what a server or client puts where is
        // given by the options of the SENDING side, which names itself with -B and its peer with -E
        final long src = fromServer ? r.serverMac() : r.clientMac();
        final long dst = fromServer ? r.clientMac() : r.serverMac();
        putMac(buf, at, dst);
        putMac(buf, at + 6, src);
        final int type = r.ethertype() >= 0 ? r.ethertype() : r.hasIp() ? ETH_P_IP : o.size() - RAWETH_ADDITION;
        buf.set(BE16, at + 12, (short) type);
        if (r.hasIp())
        {
            final long ip = at + ETH_HLEN;
            final int ipLength = o.size() - RAWETH_ADDITION;
            buf.set(ValueLayout.JAVA_BYTE, ip, (byte) 0x45);
            buf.set(ValueLayout.JAVA_BYTE, ip + 1, (byte) 0);
            buf.set(BE16, ip + 2, (short) ipLength);
            buf.set(BE16, ip + 4, (short) 0);
            buf.set(BE16, ip + 6, (short) 0);
            buf.set(ValueLayout.JAVA_BYTE, ip + 8, (byte) TTL);
            buf.set(ValueLayout.JAVA_BYTE, ip + 9, (byte) (r.hasPorts() ? (r.tcp() ? IPPROTO_TCP : IPPROTO_UDP) : 0));
            buf.set(BE16, ip + 10, (short) 0);
            buf.set(BE32, ip + 12, fromServer ? r.serverIp() : r.clientIp());
            buf.set(BE32, ip + 16, fromServer ? r.clientIp() : r.serverIp());
            buf.set(BE16, ip + 10, (short) ipChecksum(buf, ip));
            if (r.hasPorts())
            {
                final long l4 = ip + IP_HLEN;
                buf.set(BE16, l4, (short) (fromServer ? r.serverPort() : r.clientPort()));
                buf.set(BE16, l4 + 2, (short) (fromServer ? r.clientPort() : r.serverPort()));
                if (r.tcp())
                {
                    buf.set(BE32, l4 + 4, 0);                       // sequence
                    buf.set(BE32, l4 + 8, 0);                       // acknowledgement
                    buf.set(BE16, l4 + 12, (short) (5 << 12));      // data offset 5 words, no flags
                    buf.set(BE16, l4 + 14, (short) 8192);           // window
                    buf.set(BE32, l4 + 16, 0);                      // checksum, urgent pointer
                }
                else
                {
                    buf.set(BE16, l4 + 4, (short) (ipLength - IP_HLEN));
                    buf.set(BE16, l4 + 6, (short) 0);
                }
            }
        }
        long p = at + hdr;
        final long end = at + length;
        if (end - p >= 8)
        {
            buf.set(BE64, p, MAGIC);
            p += 8;
        }
        for (; p < end; p++)
        {
            buf.set(ValueLayout.JAVA_BYTE, p, pattern(p - at));
        }
    }

    /** Payload byte at frame offset {@code i}. */
    static byte pattern(final long i)
    {
        return (byte) (i * 7 + 3);
    }

    /** Whether the frame at {@code at} carries an mlx5j payload (so the whole frame can be compared). */
    static boolean isMlx5j(final MemorySegment buf, final long at, final PerfOptions o)
    {
        final int hdr = headerLength(o);
        return wireLength(o) - hdr >= 8 && buf.get(BE64, at + hdr) == MAGIC;
    }

    /** RFC 1071 one's-complement sum over the 20-byte IPv4 header at {@code ip} (checksum field zero). */
    static int ipChecksum(final MemorySegment buf, final long ip)
    {
        int sum = 0;
        for (int i = 0; i < IP_HLEN; i += 2)
        {
            sum += buf.get(BE16, ip + i) & 0xffff;
        }
        while ((sum >>> 16) != 0)
        {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return ~sum & 0xffff;
    }

    private static void putMac(final MemorySegment buf, final long at, final long mac)
    {
        buf.set(BE16, at, (short) (mac >>> 32));
        buf.set(BE32, at + 2, (int) mac);
    }
}
