// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.util.List;

import static io.mlx5j.testkit.Bytes.be16;
import static io.mlx5j.testkit.Bytes.be32;
import static io.mlx5j.testkit.Bytes.hex16;
import static io.mlx5j.testkit.Bytes.hex32;
import static io.mlx5j.testkit.Bytes.u8;

/**
 * The packet headers at the start of a frame (the inline headers of an Ethernet segment): Ethernet II, 802.1Q VLAN
 * tags, IPv4 (RFC 791), IPv6 (RFC 8200), UDP (RFC 768) and TCP (RFC 9293), as far as the bytes go. A header cut short
 * is reported as {@code truncated} with the bytes it has.
 */
final class FrameHeaders
{
    private static final int ETH_P_IP = 0x0800;
    private static final int ETH_P_IPV6 = 0x86dd;
    private static final int ETH_P_8021Q = 0x8100;
    private static final int ETH_P_8021AD = 0x88a8;
    private static final int IPPROTO_TCP = 6;
    private static final int IPPROTO_UDP = 17;

    private FrameHeaders()
    {
    }

    /** Decodes {@code len} bytes at {@code at} of {@code b}; field offsets are relative to {@code b}. */
    static void decode(final byte[] b, final int at, final int len, final String prefix, final List<WqeField> out)
    {
        final int end = at + len;
        int p = at;
        if (end - p < 14)
        {
            truncated(b, p, end, prefix + ".l2", out);
            return;
        }
        String seg = prefix + ".l2";
        out.add(new WqeField(seg, "dst", p, 6, Bytes.mac(b, p)));
        out.add(new WqeField(seg, "src", p + 6, 6, Bytes.mac(b, p + 6)));
        int type = be16(b, p + 12);
        out.add(new WqeField(seg, "ethertype", p + 12, 2, etherType(type)));
        p += 14;
        int vlans = 0;
        while (type == ETH_P_8021Q || type == ETH_P_8021AD)
        {
            seg = prefix + ".vlan" + (vlans == 0 ? "" : "[" + vlans + "]");
            if (end - p < 4)
            {
                truncated(b, p, end, seg, out);
                return;
            }
            final int tci = be16(b, p);
            out.add(new WqeField(seg, "pcp", p, 1, Integer.toString(tci >>> 13)));
            out.add(new WqeField(seg, "dei", p, 1, Integer.toString((tci >>> 12) & 1)));
            out.add(new WqeField(seg, "vid", p, 2, Integer.toString(tci & 0xfff)));
            type = be16(b, p + 2);
            out.add(new WqeField(seg, "ethertype", p + 2, 2, etherType(type)));
            p += 4;
            vlans++;
        }
        int proto;
        if (type == ETH_P_IP)
        {
            seg = prefix + ".ipv4";
            if (end - p < 20)
            {
                truncated(b, p, end, seg, out);
                return;
            }
            final int ihl = u8(b, p) & 15;
            out.add(new WqeField(seg, "version", p, 1, Integer.toString(u8(b, p) >>> 4)));
            out.add(new WqeField(seg, "ihl", p, 1, Integer.toString(ihl)));
            out.add(new WqeField(seg, "tos", p + 1, 1, Bytes.hex8(u8(b, p + 1))));
            out.add(new WqeField(seg, "total_length", p + 2, 2, Integer.toString(be16(b, p + 2))));
            out.add(new WqeField(seg, "id", p + 4, 2, hex16(be16(b, p + 4))));
            out.add(new WqeField(seg, "frag_off", p + 6, 2, hex16(be16(b, p + 6))));
            out.add(new WqeField(seg, "ttl", p + 8, 1, Integer.toString(u8(b, p + 8))));
            proto = u8(b, p + 9);
            out.add(new WqeField(seg, "protocol", p + 9, 1, ipProto(proto)));
            out.add(new WqeField(seg, "check", p + 10, 2, hex16(be16(b, p + 10))));
            out.add(new WqeField(seg, "saddr", p + 12, 4, Bytes.ipv4(b, p + 12)));
            out.add(new WqeField(seg, "daddr", p + 16, 4, Bytes.ipv4(b, p + 16)));
            if (ihl > 5)
            {
                final int opt = Math.min((ihl - 5) * 4, end - p - 20);
                out.add(new WqeField(seg, "options", p + 20, opt, Bytes.hex(b, p + 20, opt)));
            }
            p += Math.max(20, ihl * 4);
        }
        else if (type == ETH_P_IPV6)
        {
            seg = prefix + ".ipv6";
            if (end - p < 40)
            {
                truncated(b, p, end, seg, out);
                return;
            }
            final int w = be32(b, p);
            out.add(new WqeField(seg, "version", p, 1, Integer.toString(w >>> 28)));
            out.add(new WqeField(seg, "traffic_class", p, 2, Bytes.hex8((w >>> 20) & 0xff)));
            out.add(new WqeField(seg, "flow_label", p + 1, 3, String.format("0x%05x", w & 0xfffff)));
            out.add(new WqeField(seg, "payload_length", p + 4, 2, Integer.toString(be16(b, p + 4))));
            proto = u8(b, p + 6);
            out.add(new WqeField(seg, "next_header", p + 6, 1, ipProto(proto)));
            out.add(new WqeField(seg, "hop_limit", p + 7, 1, Integer.toString(u8(b, p + 7))));
            out.add(new WqeField(seg, "saddr", p + 8, 16, Bytes.ipv6(b, p + 8)));
            out.add(new WqeField(seg, "daddr", p + 24, 16, Bytes.ipv6(b, p + 24)));
            p += 40;
        }
        else
        {
            rest(b, p, end, prefix, out);
            return;
        }
        if (p > end)
        {
            return;
        }
        if (proto == IPPROTO_UDP)
        {
            seg = prefix + ".udp";
            if (end - p < 8)
            {
                truncated(b, p, end, seg, out);
                return;
            }
            out.add(new WqeField(seg, "source", p, 2, Integer.toString(be16(b, p))));
            out.add(new WqeField(seg, "dest", p + 2, 2, Integer.toString(be16(b, p + 2))));
            out.add(new WqeField(seg, "len", p + 4, 2, Integer.toString(be16(b, p + 4))));
            out.add(new WqeField(seg, "check", p + 6, 2, hex16(be16(b, p + 6))));
            p += 8;
        }
        else if (proto == IPPROTO_TCP)
        {
            seg = prefix + ".tcp";
            if (end - p < 20)
            {
                truncated(b, p, end, seg, out);
                return;
            }
            out.add(new WqeField(seg, "source", p, 2, Integer.toString(be16(b, p))));
            out.add(new WqeField(seg, "dest", p + 2, 2, Integer.toString(be16(b, p + 2))));
            out.add(new WqeField(seg, "seq", p + 4, 4, hex32(be32(b, p + 4))));
            out.add(new WqeField(seg, "ack_seq", p + 8, 4, hex32(be32(b, p + 8))));
            out.add(new WqeField(seg, "doff", p + 12, 1, Integer.toString(u8(b, p + 12) >>> 4)));
            out.add(new WqeField(seg, "flags", p + 13, 1, tcpFlags(u8(b, p + 13))));
            out.add(new WqeField(seg, "window", p + 14, 2, Integer.toString(be16(b, p + 14))));
            out.add(new WqeField(seg, "check", p + 16, 2, hex16(be16(b, p + 16))));
            out.add(new WqeField(seg, "urg_ptr", p + 18, 2, Integer.toString(be16(b, p + 18))));
            p += Math.max(20, (u8(b, p + 12) >>> 4) * 4);
        }
        if (p < end)
        {
            rest(b, p, end, prefix, out);
        }
    }

    private static void rest(final byte[] b, final int p, final int end, final String prefix, final List<WqeField> out)
    {
        if (p < end)
        {
            out.add(new WqeField(prefix + ".payload", "bytes", p, end - p, Bytes.hex(b, p, end - p)));
        }
    }

    private static void truncated(final byte[] b, final int p, final int end, final String seg,
        final List<WqeField> out)
    {
        out.add(new WqeField(seg, "truncated", p, Math.max(0, end - p), Bytes.hex(b, p, Math.max(0, end - p))));
    }

    static String etherType(final int t)
    {
        return switch (t)
        {
            case ETH_P_IP -> "IPv4";
            case ETH_P_IPV6 -> "IPv6";
            case ETH_P_8021Q -> "802.1Q";
            case ETH_P_8021AD -> "802.1ad";
            case 0x0806 -> "ARP";
            case 0x8915 -> "RoCE";
            default -> hex16(t);
        };
    }

    private static String ipProto(final int p)
    {
        return switch (p)
        {
            case IPPROTO_TCP -> "TCP";
            case IPPROTO_UDP -> "UDP";
            case 1 -> "ICMP";
            case 58 -> "ICMPv6";
            default -> Integer.toString(p);
        };
    }

    private static String tcpFlags(final int f)
    {
        final String[] names = {"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR"};
        final StringBuilder sb = new StringBuilder();
        for (int i = 7; i >= 0; i--)
        {
            if ((f & (1 << i)) != 0)
            {
                sb.append(sb.isEmpty() ? "" : "|").append(names[i]);
            }
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }
}
