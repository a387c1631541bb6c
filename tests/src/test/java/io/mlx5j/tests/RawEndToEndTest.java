// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.raw.NicClock;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Raw Ethernet through the emulated device, in one process (loopback through the port's switch): frames built from
 * a {@link UdpHeaderTemplate} and sent by {@link RawSendQueue} arrive, byte for byte, at every raw QP whose flow
 * rule matches, with the checksums the NIC filled in (verified here by an independent RFC 1071 sum), the flow tag,
 * IBV_WC_IP_CSUM_OK, the IPv4/UDP header types and a NIC timestamp that {@link NicClock} converts to wall-clock
 * time; drop rules take precedence; refused rules name what was refused.
 */
@Tag("links")
class RawEndToEndTest
{
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int GROUP = 0xef010203;     // 239.1.2.3
    private static final int PORT = 31001;
    private static final int PAYLOAD = 64;
    private static final int FRAME = UdpHeaderTemplate.LENGTH + PAYLOAD;
    private static final long SRC_MAC = 0x02000000aa01L;
    private static final int SRC_IP = 0x0a000001;

    private Rig rig;

    @BeforeEach
    void open()
    {
        rig = new Rig();
        Assumptions.assumeTrue(rig.roce, "raw packet QPs need an Ethernet port (the roce execution runs this)");
    }

    @AfterEach
    void close()
    {
        rig.close();
    }

    /** A raw QP with its own CQ, receive queue and CqPoller. */
    private final class Endpoint
    {
        final CompletionQueue cq = rig.cq(256);
        final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(64).maxRecvWr(64)
            .maxSendSge(2).maxRecvSge(1).maxInlineData(128).build());
        final RecvQueue rq;
        final CqPoller dcq;
        final MemoryRegion mr = rig.memory(1 << 20);
        final Completion c = new Completion();

        Endpoint()
        {
            qp.activate(1);
            rq = RecvQueue.of(qp);
            dcq = CqPoller.of(cq).attach(rq);
            for (int i = 0; i < 64; i++)
            {
                assertTrue(rq.post(i, mr.address() + i * 2048L, mr.lkey(), 2048));
            }
            rq.ring();
        }

        /** The next receive; the buffer is reposted after {@code check} ran. */
        Completion receive()
        {
            return Rig.await(dcq, c);
        }

        void repost(final Completion got)
        {
            assertTrue(rq.post(got.wrId(), mr.address() + got.wrId() * 2048L, mr.lkey(), 2048));
            rq.ring();
        }
    }

    @Test
    void multicastReachesEverySubscriberWithChecksumsTagsAndTimestamps()
    {
        final Endpoint tx = new Endpoint();
        final Endpoint a = new Endpoint();
        final Endpoint b = new Endpoint();
        final RawSendQueue sq = RawSendQueue.of(tx.qp, DoorbellMode.AUTO);
        final CqPoller txCq = CqPoller.of(tx.cq).attach(sq.queue());
        try (FlowRule ra = FlowRule.builder(a.qp, 1).multicast(GROUP).udpDst(PORT).tag(0x111).create();
             FlowRule rb = FlowRule.builder(b.qp, 1).multicast(GROUP).udpDst(PORT).tag(0x222).create();
             NicClock clock = NicClock.of(rig.context))
        {
            final MemorySegment tmpl = tx.mr.memory().asSlice(512 * 1024, 64);
            final UdpHeaderTemplate h = new UdpHeaderTemplate(tmpl).srcMac(SRC_MAC).srcIp(SRC_IP).srcPort(40000)
                .multicast(GROUP, PORT);
            final MemorySegment payload = tx.mr.memory().asSlice(600 * 1024, PAYLOAD);
            long lastA = Long.MIN_VALUE;
            for (int seq = 0; seq < 40; seq++)
            {
                for (int i = 0; i < PAYLOAD; i++)
                {
                    payload.set(ValueLayout.JAVA_BYTE, i, (byte) (seq * 7 + i));
                }
                h.prepare(PAYLOAD, seq);
                final int flags = SendFlags.SIGNALED | SendFlags.IP_CSUM | SendFlags.RING |
                    (seq % 2 == 0 ? SendFlags.INLINE : 0);
                final long before = System.currentTimeMillis() * 1_000_000L;
                assertTrue(sq.send(seq, h, tx.mr.lkey(), payload.address(), tx.mr.lkey(), PAYLOAD,
                    RawSendQueue.NO_VLAN, flags));
                final Completion sent = Rig.await(txCq, tx.c);
                assertTrue(sent.isSuccess(), sent.toString());
                assertEquals(seq, sent.wrId());
                final byte[] expect = new byte[FRAME];
                MemorySegment.copy(tmpl, ValueLayout.JAVA_BYTE, 0, expect, 0, UdpHeaderTemplate.LENGTH);
                MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, 0, expect, UdpHeaderTemplate.LENGTH, PAYLOAD);
                for (final Endpoint e : new Endpoint[] {a, b})
                {
                    final Completion got = e.receive();
                    assertTrue(got.isSuccess(), got.toString());
                    assertEquals(WcOpcode.RECV, got.opcode());
                    assertEquals(FRAME, got.byteLen());
                    assertEquals(e == a ? 0x111 : 0x222, got.flowTag(), "flow tag");
                    assertEquals(got.flowTag(), got.qpn(), "libmlx5 reports the tag as qp_num for raw receives");
                    assertTrue(got.ipCsumOk(), "IBV_WC_IP_CSUM_OK");
                    assertEquals(Cqe64.MLX5_CQE_L3_HDR_TYPE_IPV4, got.l3Type());
                    assertEquals(Cqe64.CQE_L4_HDR_TYPE_UDP, got.l4Type());
                    final byte[] frame = MemorySegment.ofAddress(got.frameAddress()).reinterpret(FRAME)
                        .toArray(ValueLayout.JAVA_BYTE);
                    checksumsValid(frame);
                    // the NIC filled in the UDP checksum; everything else is what was sent
                    expect[UdpHeaderTemplate.UDP_CHECKSUM_OFFSET] = frame[UdpHeaderTemplate.UDP_CHECKSUM_OFFSET];
                    expect[UdpHeaderTemplate.UDP_CHECKSUM_OFFSET + 1] =
                        frame[UdpHeaderTemplate.UDP_CHECKSUM_OFFSET + 1];
                    assertArrayEquals(expect, frame, "frame " + seq);
                    final long ns = clock.toNanos(got.timestamp());
                    final long after = System.currentTimeMillis() * 1_000_000L;
                    assertTrue(ns >= before - 50_000_000L && ns <= after + 50_000_000L,
                        "NIC time " + ns + " outside [" + before + ", " + after + "] +- 50 ms");
                    if (e == a)
                    {
                        assertTrue(got.timestamp() > lastA, "timestamps increase");
                        lastA = got.timestamp();
                    }
                    e.repost(got);
                }
            }
        }
    }

    /**
     * Receives posted and rung while the raw QP is still in RESET arrive: libmlx5 writes its own receive head (0) into
     * the doorbell record at RTR, and the queue publishes its own again after it, so the 8 frames sent after
     * activation land in the 8 buffers posted before it, in order and byte for byte.
     */
    @Test
    void receivesPostedBeforeRtrAreKept()
    {
        final Endpoint tx = new Endpoint();
        final CompletionQueue cq = rig.cq(64);
        final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(8).maxRecvWr(16)
            .maxSendSge(1).maxRecvSge(1).build());
        final MemoryRegion mr = rig.memory(1 << 16);
        final RecvQueue rq = RecvQueue.of(qp);
        final CqPoller dcq = CqPoller.of(cq).attach(rq);
        final int n = 8;
        for (int i = 0; i < n; i++)
        {
            assertTrue(rq.post(i, mr.address() + i * 2048L, mr.lkey(), 2048));
        }
        assertEquals(n, rq.ring());
        qp.activate(1);
        final RawSendQueue sq = RawSendQueue.of(tx.qp, DoorbellMode.AUTO);
        final CqPoller txCq = CqPoller.of(tx.cq).attach(sq.queue());
        final Completion got = new Completion();
        try (FlowRule rule = FlowRule.builder(qp, 1).ethDst(UdpHeaderTemplate.multicastMac(GROUP)).create())
        {
            final MemorySegment tmpl = tx.mr.memory().asSlice(512 * 1024, 64);
            final UdpHeaderTemplate h = new UdpHeaderTemplate(tmpl).srcMac(SRC_MAC).srcIp(SRC_IP).srcPort(9)
                .multicast(GROUP, PORT);
            final MemorySegment payload = tx.mr.memory().asSlice(600 * 1024, PAYLOAD);
            for (int k = 0; k < n; k++)
            {
                for (int i = 0; i < PAYLOAD; i++)
                {
                    payload.set(ValueLayout.JAVA_BYTE, i, (byte) (k * 13 + i));
                }
                h.prepare(PAYLOAD, k);
                assertTrue(sq.send(k, h, tx.mr.lkey(), payload.address(), tx.mr.lkey(), PAYLOAD,
                    RawSendQueue.NO_VLAN, SendFlags.SIGNALED | SendFlags.RING));
                final Completion sent = Rig.await(txCq, tx.c);
                assertTrue(sent.isSuccess(), sent.toString());
                Rig.await(dcq, got);
                assertTrue(got.isSuccess(), got.toString());
                assertEquals(k, got.wrId(), "the buffers posted before RTR complete in posting order");
                assertEquals(FRAME, got.byteLen(), got.toString());
                assertArrayEquals(payload.toArray(ValueLayout.JAVA_BYTE),
                    mr.memory().asSlice(k * 2048L + UdpHeaderTemplate.LENGTH, PAYLOAD).toArray(ValueLayout.JAVA_BYTE),
                    "frame " + k);
            }
        }
        assertEquals(0, rq.outstanding());
    }

    /**
     * Beyond libmlx5: the whole 42-byte header inline in the Ethernet segment ({@link RawSendQueue#inlineHeaders}),
     * and VLAN insertion; the device must send the same frame (the tag stays on the wire: no stripping asked).
     */
    @Test
    void wholeHeaderInlineAndVlanInsertion()
    {
        final Endpoint tx = new Endpoint();
        final Endpoint rx = new Endpoint();
        final RawSendQueue sq = RawSendQueue.of(tx.qp, DoorbellMode.AUTO).inlineHeaders(UdpHeaderTemplate.LENGTH);
        final CqPoller txCq = CqPoller.of(tx.cq).attach(sq.queue());
        try (FlowRule all = FlowRule.builder(rx.qp, 1).ethDst(UdpHeaderTemplate.multicastMac(GROUP)).create())
        {
            final MemorySegment tmpl = tx.mr.memory().asSlice(512 * 1024, 64);
            final UdpHeaderTemplate h = new UdpHeaderTemplate(tmpl).srcMac(SRC_MAC).srcIp(SRC_IP).srcPort(7)
                .multicast(GROUP, PORT);
            final MemorySegment payload = tx.mr.memory().asSlice(600 * 1024, PAYLOAD);
            for (int i = 0; i < PAYLOAD; i++)
            {
                payload.set(ValueLayout.JAVA_BYTE, i, (byte) (3 * i + 1));
            }
            for (int k = 0; k < 4; k++)
            {
                final int vlan = k < 2 ? RawSendQueue.NO_VLAN : 0x2005 + k;
                h.prepare(PAYLOAD, k);
                assertTrue(sq.send(k, h, tx.mr.lkey(), payload.address(), tx.mr.lkey(), PAYLOAD, vlan,
                    SendFlags.SIGNALED | SendFlags.RING | (k % 2 == 0 ? SendFlags.INLINE : 0)));
                assertTrue(Rig.await(txCq, tx.c).isSuccess(), tx.c.toString());
                final Completion got = rx.receive();
                final int len = FRAME + (vlan == RawSendQueue.NO_VLAN ? 0 : 4);
                assertEquals(len, got.byteLen(), got.toString());
                final byte[] frame = MemorySegment.ofAddress(got.frameAddress()).reinterpret(len)
                    .toArray(ValueLayout.JAVA_BYTE);
                final byte[] expect = new byte[len];
                final int hdrAt = vlan == RawSendQueue.NO_VLAN ? 0 : 4;
                MemorySegment.copy(tmpl, ValueLayout.JAVA_BYTE, 0, expect, 0, 12);
                if (vlan != RawSendQueue.NO_VLAN)
                {
                    expect[12] = (byte) 0x81;
                    expect[14] = (byte) (vlan >>> 8);
                    expect[15] = (byte) vlan;
                }
                MemorySegment.copy(tmpl, ValueLayout.JAVA_BYTE, 12, expect, 12 + hdrAt, UdpHeaderTemplate.LENGTH - 12);
                MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, 0, expect, UdpHeaderTemplate.LENGTH + hdrAt,
                    PAYLOAD);
                assertArrayEquals(expect, frame, "frame " + k + " (vlan " + vlan + ")");
                rx.repost(got);
            }
        }
    }

    @Test
    void dropRuleWinsAndClosingTheQpClosesItsRules()
    {
        final Endpoint tx = new Endpoint();
        final Endpoint rx = new Endpoint();
        final RawSendQueue sq = RawSendQueue.of(tx.qp, DoorbellMode.DOORBELL);
        final CqPoller txCq = CqPoller.of(tx.cq).attach(sq.queue());
        final FlowRule take = FlowRule.builder(rx.qp, 1).priority(1).multicast(GROUP).udpDst(PORT).create();
        final FlowRule drop = FlowRule.builder(rx.qp, 1).priority(0).multicast(GROUP).udp(PORT, 0xffff, 666, 0xffff)
            .drop().create();
        final MemorySegment tmpl = tx.mr.memory().asSlice(512 * 1024, 64);
        final UdpHeaderTemplate h = new UdpHeaderTemplate(tmpl).srcMac(SRC_MAC).srcIp(SRC_IP).multicast(GROUP, PORT);
        for (int i = 0; i < 6; i++)
        {
            final int srcPort = i % 2 == 0 ? 666 : 1000 + i;
            h.srcPort(srcPort).prepare(PAYLOAD, i);
            assertTrue(sq.send(i, h, tx.mr.lkey(), tx.mr.address(), tx.mr.lkey(), PAYLOAD, RawSendQueue.NO_VLAN,
                SendFlags.SIGNALED | SendFlags.RING));
            Rig.await(txCq, tx.c);
            if (srcPort == 666)
            {
                Rig.assertEmpty(rx.dcq, rx.c);
            }
            else
            {
                final Completion got = rx.receive();
                final MemorySegment f = MemorySegment.ofAddress(got.frameAddress()).reinterpret(FRAME);
                assertEquals(srcPort, f.get(BE16, UdpHeaderTemplate.UDP_SRC_PORT_OFFSET) & 0xffff);
                rx.repost(got);
            }
        }
        rx.qp.close();
        assertTrue(take.isClosed() && drop.isClosed(), "closing the QP closed its rules first");
    }

    /** A sniffer rule sees the frame a normal rule also takes; TCP and IPv6 specs are accepted by the kernel. */
    @Test
    void snifferAndOtherSpecKinds()
    {
        final Endpoint tx = new Endpoint();
        final Endpoint rx = new Endpoint();
        final Endpoint sniff = new Endpoint();
        final RawSendQueue sq = RawSendQueue.of(tx.qp, DoorbellMode.AUTO);
        final CqPoller txCq = CqPoller.of(tx.cq).attach(sq.queue());
        final byte[] v6 = new byte[16];
        v6[0] = (byte) 0xff;
        v6[15] = 1;
        final byte[] all = new byte[16];
        java.util.Arrays.fill(all, (byte) 0xff);
        try (FlowRule take = FlowRule.builder(rx.qp, 1).multicast(GROUP).udpDst(PORT).create();
             FlowRule sniffer = FlowRule.builder(sniff.qp, 1).sniffer().create();
             FlowRule tcp = FlowRule.builder(rx.qp, 1).ipv4Dst(SRC_IP).tcp(80, 0xffff, 0, 0).create();
             FlowRule ipv6 = FlowRule.builder(rx.qp, 1)
                 .eth(0x333300000001L, 0xffff_ffff_ffffL, 0, 0, 0x86dd, 0xffff, 0, 0)
                 .ipv6(null, null, v6, all, 0, 0, 17, 0xff).udpDst(PORT).create())
        {
            final MemorySegment tmpl = tx.mr.memory().asSlice(512 * 1024, 64);
            final UdpHeaderTemplate h = new UdpHeaderTemplate(tmpl).srcMac(SRC_MAC).srcIp(SRC_IP).srcPort(9)
                .multicast(GROUP, PORT).prepare(PAYLOAD, 1);
            assertTrue(sq.send(1, h, tx.mr.lkey(), tx.mr.address(), tx.mr.lkey(), PAYLOAD, RawSendQueue.NO_VLAN,
                SendFlags.SIGNALED | SendFlags.RING));
            Rig.await(txCq, tx.c);
            assertEquals(FRAME, rx.receive().byteLen(), "the normal rule's QP");
            assertEquals(FRAME, sniff.receive().byteLen(), "the sniffer's QP");
            assertTrue(tcp.toString().contains("tcp(dst_port 80"), tcp.toString());
            assertTrue(ipv6.toString().contains("ipv6("), ipv6.toString());
        }
    }

    @Test
    void refusedRulesNameTheField()
    {
        final Endpoint rx = new Endpoint();
        final IllegalArgumentException tag = assertThrows(IllegalArgumentException.class,
            () -> FlowRule.builder(rx.qp, 1).ethDst(0x01005e010203L).tag(1 << 24));
        assertTrue(tag.getMessage().startsWith("flow_tag tag_id"), tag.getMessage());
        final IllegalArgumentException mc = assertThrows(IllegalArgumentException.class,
            () -> FlowRule.builder(rx.qp, 1).multicast(0x0a000001));
        assertTrue(mc.getMessage().startsWith("ipv4 dst_ip"), mc.getMessage());
        // the kernel refuses a rule on a port the device does not have
        final VerbsException port = assertThrows(VerbsException.class,
            () -> FlowRule.builder(rx.qp, 2).ethDst(0x01005e010203L).create());
        assertTrue(port.getMessage().contains("ibv_create_flow"), port.getMessage());
        final QueuePair rc = rig.pd.createQp(QpConfig.builder(QpType.RC, rx.cq).build());
        assertThrows(IllegalArgumentException.class, () -> FlowRule.builder(rc, 1));
        assertFalse(rx.qp.isClosed());
    }

    /** IPv4 header checksum and UDP checksum (with the pseudo-header) verify: RFC 1071 sums to 0xffff. */
    private static void checksumsValid(final byte[] f)
    {
        final int ip = UdpHeaderTemplate.ETH_HLEN;
        assertEquals(0xffff, sum(f, ip, UdpHeaderTemplate.IP_HLEN, 0), "IPv4 header checksum");
        final int udpLen = ((f[ip + 24] & 0xff) << 8) | (f[ip + 25] & 0xff);
        long pseudo = word(f, ip + 12) + word(f, ip + 14) + word(f, ip + 16) + word(f, ip + 18) +
            UdpHeaderTemplate.IPPROTO_UDP + udpLen;
        final int udpSum = ((f[UdpHeaderTemplate.UDP_CHECKSUM_OFFSET] & 0xff) << 8) |
            (f[UdpHeaderTemplate.UDP_CHECKSUM_OFFSET + 1] & 0xff);
        assertTrue(udpSum != 0, "the NIC filled in the UDP checksum");
        assertEquals(0xffff, sum(f, ip + UdpHeaderTemplate.IP_HLEN, udpLen, pseudo), "UDP checksum");
    }

    private static long word(final byte[] f, final int at)
    {
        return ((f[at] & 0xff) << 8) | (f[at + 1] & 0xff);
    }

    private static int sum(final byte[] f, final int from, final int len, final long seed)
    {
        long s = seed;
        for (int i = 0; i < len; i += 2)
        {
            s += ((f[from + i] & 0xff) << 8) | (i + 1 < len ? f[from + i + 1] & 0xff : 0);
        }
        while ((s >>> 16) != 0)
        {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) s;
    }
}
