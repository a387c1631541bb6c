// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A reusable Ethernet II / IPv4 / UDP header (42 bytes, no IP options, no VLAN tag) in a caller-supplied segment,
 * built once and patched per frame: destination, ports, lengths and the IP identification, with the IPv4 header
 * checksum recomputed in software (a 20-byte one's-complement sum, RFC 1071). The UDP checksum is left 0 ("none",
 * legal for IPv4, RFC 768) unless the send asks the NIC for L4 checksum offload, which fills it in.
 * <pre>
 *  0  dst MAC (6) | 6 src MAC (6) | 12 ethertype 0x0800
 * 14  ver/ihl 0x45 | 15 tos | 16 total length | 18 id | 20 flags/fragment (DF) | 22 ttl | 23 proto 17 | 24 csum
 * 26  src IP | 30 dst IP
 * 34  src port | 36 dst port | 38 UDP length | 40 UDP checksum
 * </pre>
 * Every field is stored in network byte order; values are passed as numbers (an IPv4 address as the 32-bit number
 * whose most significant byte is the first octet, a MAC as the 48-bit number whose most significant byte is the
 * first on the wire). No method allocates. Not thread-safe: one template per sending thread.
 */
public final class UdpHeaderTemplate
{
    /** Bytes of an Ethernet II header: two MACs and the ethertype. */
    public static final int ETH_HLEN = 14;
    /** Bytes of an IPv4 header without options. */
    public static final int IP_HLEN = 20;
    /** Bytes of a UDP header. */
    public static final int UDP_HLEN = 8;
    /** Size of the 42-byte Ethernet/IPv4/UDP header in bytes. */
    public static final int LENGTH = ETH_HLEN + IP_HLEN + UDP_HLEN;

    /** Byte offset of {@code dst_mac} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int DST_MAC_OFFSET = 0;
    /** Byte offset of {@code src_mac} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int SRC_MAC_OFFSET = 6;
    /** Byte offset of {@code ethertype} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int ETHERTYPE_OFFSET = 12;
    /** Byte offset of {@code ip_version_ihl} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_VERSION_IHL_OFFSET = 14;
    /** Byte offset of {@code ip_tos} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_TOS_OFFSET = 15;
    /** Byte offset of {@code ip_total_length} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_TOTAL_LENGTH_OFFSET = 16;
    /** Byte offset of {@code ip_id} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_ID_OFFSET = 18;
    /** Byte offset of {@code ip_frag} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_FRAG_OFFSET = 20;
    /** Byte offset of {@code ip_ttl} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_TTL_OFFSET = 22;
    /** Byte offset of {@code ip_protocol} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_PROTOCOL_OFFSET = 23;
    /** Byte offset of {@code ip_checksum} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_CHECKSUM_OFFSET = 24;
    /** Byte offset of {@code ip_src} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_SRC_OFFSET = 26;
    /** Byte offset of {@code ip_dst} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int IP_DST_OFFSET = 30;
    /** Byte offset of {@code udp_src_port} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int UDP_SRC_PORT_OFFSET = 34;
    /** Byte offset of {@code udp_dst_port} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int UDP_DST_PORT_OFFSET = 36;
    /** Byte offset of {@code udp_length} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int UDP_LENGTH_OFFSET = 38;
    /** Byte offset of {@code udp_checksum} in the 42-byte Ethernet/IPv4/UDP header. */
    public static final int UDP_CHECKSUM_OFFSET = 40;

    /** The IPv4 ethertype (Linux if_ether.h ETH_P_IP). */
    public static final int ETH_P_IP = 0x0800;
    /** The IP protocol number of UDP (RFC 768). */
    public static final int IPPROTO_UDP = 17;
    /** IPv4 "don't fragment" flag in the flags/fragment-offset word. */
    public static final int IP_DF = 0x4000;
    /** Ethernet multicast MACs for IPv4 groups: 01:00:5e + the low 23 bits of the group (RFC 1112). */
    public static final long IPV4_MULTICAST_MAC_BASE = 0x01005e000000L;

    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment header;

    /**
     * Writes a default header into the first {@link #LENGTH} bytes of {@code header}: addresses and ports zero,
     * ethertype IPv4, version 4 / IHL 5, DF set, TTL 64, protocol UDP, lengths for an empty payload.
     *
     * @param header at least {@link #LENGTH} bytes; the template keeps a slice of them
     * @throws IllegalArgumentException if {@code header} is shorter than {@link #LENGTH}
     */
    public UdpHeaderTemplate(final MemorySegment header)
    {
        if (header.byteSize() < LENGTH)
        {
            throw new IllegalArgumentException("a UDP header template needs " + LENGTH + " bytes: " +
                header.byteSize());
        }
        this.header = header.asSlice(0, LENGTH);
        this.header.fill((byte)0);
        this.header.set(BE16, ETHERTYPE_OFFSET, (short)ETH_P_IP);
        this.header.set(ValueLayout.JAVA_BYTE, IP_VERSION_IHL_OFFSET, (byte)0x45);
        this.header.set(BE16, IP_FRAG_OFFSET, (short)IP_DF);
        this.header.set(ValueLayout.JAVA_BYTE, IP_TTL_OFFSET, (byte)64);
        this.header.set(ValueLayout.JAVA_BYTE, IP_PROTOCOL_OFFSET, (byte)IPPROTO_UDP);
        prepare(0, 0);
    }

    /** {@return the 42 header bytes (a slice of the segment given to the constructor)} */
    public MemorySegment segment()
    {
        return header;
    }

    /**
     * Sets the source MAC.
     *
     * @param mac the MAC as a 48-bit number, first wire byte most significant
     * @return this template
     */
    public UdpHeaderTemplate srcMac(final long mac)
    {
        putMac(SRC_MAC_OFFSET, mac);
        return this;
    }

    /**
     * Sets the destination MAC.
     *
     * @param mac the MAC as a 48-bit number, first wire byte most significant
     * @return this template
     */
    public UdpHeaderTemplate dstMac(final long mac)
    {
        putMac(DST_MAC_OFFSET, mac);
        return this;
    }

    /**
     * Sets the source IPv4 address and recomputes the IP header checksum.
     *
     * @param ip the IPv4 address as a 32-bit number, first octet most significant
     * @return this template
     */
    public UdpHeaderTemplate srcIp(final int ip)
    {
        header.set(BE32, IP_SRC_OFFSET, ip);
        return this;
    }

    /**
     * Sets the destination IPv4 address and recomputes the IP header checksum.
     *
     * @param ip the IPv4 address as a 32-bit number, first octet most significant
     * @return this template
     */
    public UdpHeaderTemplate dstIp(final int ip)
    {
        header.set(BE32, IP_DST_OFFSET, ip);
        return this;
    }

    /**
     * Sets the UDP source port.
     *
     * @param port the UDP port, 16 bits
     * @return this template
     */
    public UdpHeaderTemplate srcPort(final int port)
    {
        header.set(BE16, UDP_SRC_PORT_OFFSET, (short)port);
        return this;
    }

    /**
     * Sets the UDP destination port.
     *
     * @param port the UDP port, 16 bits
     * @return this template
     */
    public UdpHeaderTemplate dstPort(final int port)
    {
        header.set(BE16, UDP_DST_PORT_OFFSET, (short)port);
        return this;
    }

    /**
     * Sets the IPv4 time to live and recomputes the IP header checksum.
     *
     * @param ttl the time to live, 8 bits
     * @return this template
     */
    public UdpHeaderTemplate ttl(final int ttl)
    {
        header.set(ValueLayout.JAVA_BYTE, IP_TTL_OFFSET, (byte)ttl);
        return this;
    }

    /**
     * Sets the IPv4 type of service byte and recomputes the IP header checksum.
     *
     * @param tos the type of service byte
     * @return this template
     */
    public UdpHeaderTemplate tos(final int tos)
    {
        header.set(ValueLayout.JAVA_BYTE, IP_TOS_OFFSET, (byte)tos);
        return this;
    }

    /**
     * Destination MAC, IP and port at once.
     *
     * @param mac the MAC as a 48-bit number, first wire byte most significant
     * @param ip the IPv4 address as a 32-bit number, first octet most significant
     * @param port the UDP port, 16 bits
     * @return this template
     */
    public UdpHeaderTemplate dst(final long mac, final int ip, final int port)
    {
        return dstMac(mac).dstIp(ip).dstPort(port);
    }

    /**
     * Destination = an IPv4 multicast group: the group's Ethernet MAC, the group, the port.
     *
     * @param group the IPv4 multicast group address as a 32-bit number
     * @param port the UDP port, 16 bits
     * @return this template
     */
    public UdpHeaderTemplate multicast(final int group, final int port)
    {
        return dst(multicastMac(group), group, port);
    }

    /**
     * The Ethernet MAC an IPv4 multicast group maps to (RFC 1112 section 6.4).
     *
     * @param group the IPv4 multicast group address as a 32-bit number
     * @return the MAC as a 48-bit number
     */
    public static long multicastMac(final int group)
    {
        return IPV4_MULTICAST_MAC_BASE | (group & 0x7fffffL);
    }

    /**
     * Per-frame patch: the IPv4 total length and UDP length for {@code payloadLength} bytes after the header, the
     * IP identification, and the IPv4 header checksum over the result.
     *
     * @param payloadLength UDP payload bytes
     * @param ipId the IP identification, 16 bits
     * @return this template
     */
    public UdpHeaderTemplate prepare(final int payloadLength, final int ipId)
    {
        header.set(BE16, IP_TOTAL_LENGTH_OFFSET, (short)(IP_HLEN + UDP_HLEN + payloadLength));
        header.set(BE16, UDP_LENGTH_OFFSET, (short)(UDP_HLEN + payloadLength));
        header.set(BE16, IP_ID_OFFSET, (short)ipId);
        header.set(BE16, IP_CHECKSUM_OFFSET, (short)0);
        int sum = 0;
        for (int i = 0; i < IP_HLEN; i += 2)
        {
            sum += header.get(BE16, ETH_HLEN + i) & 0xffff;
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        sum += sum >>> 16;
        header.set(BE16, IP_CHECKSUM_OFFSET, (short)~sum);
        return this;
    }

    private void putMac(final int at, final long mac)
    {
        header.set(BE16, at, (short)(mac >>> 32));
        header.set(BE32, at + 2, (int)mac);
    }
}
