// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.UdpHeaderTemplate;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sends whole IPv4/UDP multicast frames through a raw QP of the emulated device (engine on), one at a time: the
 * frame is built in registered memory (header from a {@link UdpHeaderTemplate}, payload a pattern of the sequence
 * number), sent as one gathered entry without checksum offload (so the frame on the wire is exactly these bytes),
 * and its send completion awaited. {@link #send} returns the bytes a receiver must find.
 */
final class FrameSender
{
    static final long SRC_MAC = 0x02000000aa07L;
    static final int SRC_IP = 0x0a000107;

    private final CompletionQueue cq;
    private final RawSendQueue sq;
    private final CqPoller dcq;
    private final MemoryRegion mr;
    private final UdpHeaderTemplate h;
    private final Completion c = new Completion();
    private final int group;
    private final int port;

    FrameSender(final Rig rig, final int group, final int port)
    {
        this(rig.pd, rig.memory, group, port);
    }

    /** A sender in {@code pd}, its memory from {@code arena}. */
    FrameSender(final io.mlx5j.verbs.ProtectionDomain pd, final java.lang.foreign.Arena arena, final int group,
        final int port)
    {
        this.group = group;
        this.port = port;
        cq = pd.context().createCq(64);
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(32).maxRecvWr(1)
            .maxSendSge(1).maxRecvSge(1).maxInlineData(0).build());
        qp.activate(1);
        sq = RawSendQueue.of(qp, DoorbellMode.AUTO);
        dcq = CqPoller.of(cq).attach(sq.queue());
        mr = pd.register(arena, arena.allocate(1 << 16, 4096), io.mlx5j.verbs.Access.LOCAL_WRITE);
        h = new UdpHeaderTemplate(mr.memory().asSlice(0, 64)).srcMac(SRC_MAC).srcIp(SRC_IP).multicast(group, port);
    }

    /** The payload byte {@code i} of frame {@code seq}: the first 4 bytes are seq (big-endian), then a pattern. */
    static byte payloadByte(final int seq, final int i)
    {
        return i < 4 ? (byte) (seq >>> (24 - 8 * i)) : (byte) (seq * 13 + i * 7 + (i >>> 8));
    }

    /**
     * Sends frame {@code seq} from {@code srcPort} with {@code payloadLen} bytes of payload; returns the frame.
     */
    byte[] send(final int seq, final int srcPort, final int payloadLen)
    {
        final int len = UdpHeaderTemplate.LENGTH + payloadLen;
        h.srcPort(srcPort).multicast(group, port).prepare(payloadLen, seq);
        final MemorySegment frame = mr.memory().asSlice(4096, len);
        MemorySegment.copy(h.segment(), 0, frame, 0, UdpHeaderTemplate.LENGTH);
        for (int i = 0; i < payloadLen; i++)
        {
            frame.set(ValueLayout.JAVA_BYTE, UdpHeaderTemplate.LENGTH + i, payloadByte(seq, i));
        }
        final byte[] bytes = frame.toArray(ValueLayout.JAVA_BYTE);
        assertTrue(sq.send(seq, frame.address(), mr.lkey(), len, SendFlags.SIGNALED | SendFlags.RING), "send " + seq);
        Rig.await(dcq, c);
        assertTrue(c.isSuccess(), "send completion " + c);
        assertEquals(seq, c.wrId());
        return bytes;
    }

    /** Sends {@code frame} as it is (any bytes: bad checksums, VLAN tags) and awaits its send completion. */
    void sendBytes(final int seq, final byte[] frame)
    {
        final MemorySegment at = mr.memory().asSlice(4096, frame.length);
        at.copyFrom(MemorySegment.ofArray(frame));
        assertTrue(sq.send(seq, at.address(), mr.lkey(), frame.length, SendFlags.SIGNALED | SendFlags.RING),
            "send " + seq);
        Rig.await(dcq, c);
        assertTrue(c.isSuccess(), "send completion " + c);
        assertEquals(seq, c.wrId());
    }

    /**
     * An IPv4/UDP multicast frame to {@code group:port} with {@code payloadLen} payload bytes: an 802.1Q tag when
     * {@code vlanTci >= 0}; a valid IPv4 header checksum unless {@code badIpCsum}; UDP checksum 0 (none), or the
     * correct RFC 768 sum when {@code udpCsum}, or a wrong non-zero one when {@code badUdpCsum}.
     */
    static byte[] frame(final int group, final int port, final int srcPort, final int payloadLen, final int vlanTci,
        final boolean badIpCsum, final boolean udpCsum, final boolean badUdpCsum, final int seq)
    {
        final int l2 = vlanTci >= 0 ? 18 : 14;
        final int ipLen = 20 + 8 + payloadLen;
        final byte[] f = new byte[l2 + ipLen];
        final long mac = UdpHeaderTemplate.multicastMac(group);
        for (int i = 0; i < 6; i++)
        {
            f[i] = (byte) (mac >>> (40 - 8 * i));
            f[6 + i] = (byte) (SRC_MAC >>> (40 - 8 * i));
        }
        if (vlanTci >= 0)
        {
            f[12] = (byte) 0x81;
            f[14] = (byte) (vlanTci >>> 8);
            f[15] = (byte) vlanTci;
        }
        f[l2 - 2] = 0x08;
        final int ip = l2;
        f[ip] = 0x45;
        f[ip + 2] = (byte) (ipLen >>> 8);
        f[ip + 3] = (byte) ipLen;
        f[ip + 4] = (byte) (seq >>> 8);
        f[ip + 5] = (byte) seq;
        f[ip + 8] = 64;
        f[ip + 9] = 17;
        put32(f, ip + 12, SRC_IP);
        put32(f, ip + 16, group);
        final int ipSum = ~sum(f, ip, 20, 0) & 0xffff;
        f[ip + 10] = (byte) ((badIpCsum ? ipSum ^ 0x5a5a : ipSum) >>> 8);
        f[ip + 11] = (byte) (badIpCsum ? ipSum ^ 0x5a5a : ipSum);
        final int udp = ip + 20;
        f[udp] = (byte) (srcPort >>> 8);
        f[udp + 1] = (byte) srcPort;
        f[udp + 2] = (byte) (port >>> 8);
        f[udp + 3] = (byte) port;
        f[udp + 4] = (byte) ((8 + payloadLen) >>> 8);
        f[udp + 5] = (byte) (8 + payloadLen);
        for (int i = 0; i < payloadLen; i++)
        {
            f[udp + 8 + i] = payloadByte(seq, i);
        }
        if (udpCsum || badUdpCsum)
        {
            // pseudo header: addresses, protocol, UDP length
            int pseudo = sum(f, ip + 12, 8, 0) + 17 + 8 + payloadLen;
            int u = ~sum(f, udp, 8 + payloadLen, pseudo) & 0xffff;
            if (u == 0)
            {
                u = 0xffff;
            }
            if (badUdpCsum)
            {
                u = u == 0x1234 ? 0x4321 : 0x1234;
            }
            f[udp + 6] = (byte) (u >>> 8);
            f[udp + 7] = (byte) u;
        }
        return f;
    }

    private static void put32(final byte[] f, final int at, final int v)
    {
        f[at] = (byte) (v >>> 24);
        f[at + 1] = (byte) (v >>> 16);
        f[at + 2] = (byte) (v >>> 8);
        f[at + 3] = (byte) v;
    }

    /** RFC 1071 one's-complement sum of 16-bit words, folded (not inverted). */
    private static int sum(final byte[] b, final int off, final int len, final int initial)
    {
        long s = initial;
        for (int i = 0; i < len; i += 2)
        {
            s += (b[off + i] & 0xff) << 8 | (i + 1 < len ? b[off + i + 1] & 0xff : 0);
        }
        while ((s >>> 16) != 0)
        {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) s;
    }

    /** Toeplitz (Microsoft RSS) over {@code in}: for every set input bit, XOR the 32 key bits starting there. */
    static int toeplitz(final byte[] key, final byte[] in)
    {
        int hash = 0;
        for (int i = 0; i < in.length * 8; i++)
        {
            if ((in[i >>> 3] & (0x80 >>> (i & 7))) != 0)
            {
                int window = 0;
                for (int b = 0; b < 32; b++)
                {
                    final int k = i + b;
                    window = window << 1 | ((key[k >>> 3] >>> (7 - (k & 7))) & 1);
                }
                hash ^= window;
            }
        }
        return hash;
    }

    /** The RSS input of an IPv4/UDP frame hashed over addresses and ports: src IP, dst IP, src port, dst port. */
    static byte[] ipv4UdpTuple(final int srcIp, final int dstIp, final int srcPort, final int dstPort)
    {
        return new byte[] {(byte) (srcIp >>> 24), (byte) (srcIp >>> 16), (byte) (srcIp >>> 8), (byte) srcIp,
            (byte) (dstIp >>> 24), (byte) (dstIp >>> 16), (byte) (dstIp >>> 8), (byte) dstIp,
            (byte) (srcPort >>> 8), (byte) srcPort, (byte) (dstPort >>> 8), (byte) dstPort};
    }
}
