// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UD multicast through rdma_cm with traffic: UD QPs on datagram ids join one group (rdma_join_multicast; the channel
 * attaches each id's QP to the group's MGID/MLID on MULTICAST_JOIN, as librdmacm does for its own QPs), a member
 * sends datagrams to QPN 0xffffff through an AddressHandle made from its MULTICAST_JOIN event, and every other
 * member receives each one: the exact bytes behind the 40-byte GRH, the sender's QPN as source, in order. Also
 * against the unmodified {@code mckey} of rdma-core, as sender in another process. IB and RoCE (the latter in the
 * rdma-cm-roce execution).
 */
class CmMulticastTest
{
    private static final Duration T = Duration.ofSeconds(10);
    private static final int GRH = 40;
    private static final int MULTICAST_QPN = 0xffffff;
    /** Receive slots per member and their size (GRH included): 8 x 256 bytes, the upper half of the buffer. */
    private static final int RECEIVES = 8;
    private static final int SLOT = 256;

    /** One member: a datagram id bound to 127.0.0.1, its UD QP, receives posted, joined to {@code group}. */
    private static final class Member implements AutoCloseable
    {
        final Endpoint resources = new Endpoint();
        final CmId id;
        final QueuePair qp;
        final SendQueue sq;
        final RecvQueue rq;
        final CqPoller cq;
        CmEvent joined;
        /** The 40 bytes in front of the last received datagram (the GRH slot of a UD receive). */
        byte[] lastGrh;

        Member(final EventChannel channel, final InetAddress local)
        {
            id = channel.createId(PortSpace.UDP);
            id.bind(new InetSocketAddress(local, 0));
            qp = resources.create(id, QpType.UD);
            id.attachDatagramQp(qp);
            sq = SendQueue.of(qp, DoorbellMode.AUTO);
            rq = RecvQueue.of(qp);
            cq = CqPoller.of(resources.cq).attach(sq).attach(rq);
            // RECEIVES receives of SLOT bytes (GRH included) in the 4 KiB buffer's upper half: UD drops a datagram
            // that finds no receive posted, and a sender in another process may send all its datagrams at once
            for (int i = 0; i < RECEIVES; i++)
            {
                assertTrue(rq.post(100 + i, slot(i), resources.mr.lkey(), SLOT));
            }
            rq.ring();
        }

        long slot(final int i)
        {
            return resources.buf.address() + 2048 + (long) SLOT * i;
        }

        void join(final InetAddress group)
        {
            id.joinMulticast(group);
            joined = id.awaitEvent(T);
            assertNotNull(joined, "MULTICAST_JOIN within " + T);
            assertEquals(CmEventType.MULTICAST_JOIN, joined.type(), joined.toString());
            assertEquals(0, joined.status(), joined.toString());
            assertEquals(MULTICAST_QPN, joined.qpNum(), joined.toString());
            assertEquals(Set.of(group), id.multicastGroups());
        }

        /** The next receive: its bytes after the GRH, checked for length and source QP. */
        byte[] receive(final Completion wc, final int expectLength, final int expectSourceQp)
        {
            final long deadline = System.nanoTime() + T.toNanos();
            while (cq.poll(wc) == 0)
            {
                assertTrue(System.nanoTime() < deadline, "no datagram within " + T);
                Thread.yield();
            }
            assertTrue(wc.isSuccess(), wc.toString());
            assertTrue(wc.wrId() >= 100 && wc.wrId() < 100 + RECEIVES, wc.toString());
            assertEquals(GRH + expectLength, wc.byteLen(), wc.toString());
            if (expectSourceQp >= 0)
            {
                assertEquals(expectSourceQp, wc.srcQp(), wc.toString());
            }
            final int i = (int) wc.wrId() - 100;
            lastGrh = MemorySegment.ofAddress(slot(i)).reinterpret(GRH).toArray(ValueLayout.JAVA_BYTE);
            final byte[] data = MemorySegment.ofAddress(slot(i) + GRH).reinterpret(expectLength)
                .toArray(ValueLayout.JAVA_BYTE);
            assertTrue(rq.post(wc.wrId(), slot(i), resources.mr.lkey(), SLOT));
            rq.ring();
            return data;
        }

        /**
         * Waits for the send completion of {@code wrId}. A copy of the datagram may arrive in this member's own
         * receives (ConnectX loops multicast back to a member QP unless it blocks that); such receives are put back.
         */
        void awaitSend(final Completion wc, final long wrId)
        {
            final long deadline = System.nanoTime() + T.toNanos();
            while (true)
            {
                if (cq.poll(wc) == 0)
                {
                    assertTrue(System.nanoTime() < deadline, "no send completion for wr_id " + wrId);
                    Thread.yield();
                    continue;
                }
                assertTrue(wc.isSuccess(), wc.toString());
                if (wc.opcode() == WcOpcode.RECV)
                {
                    assertTrue(rq.post(wc.wrId(), slot((int) wc.wrId() - 100), resources.mr.lkey(), SLOT));
                    rq.ring();
                    continue;
                }
                assertEquals(wrId, wc.wrId(), wc.toString());
                return;
            }
        }

        @Override
        public void close()
        {
            try
            {
                for (final InetAddress g : id.multicastGroups())
                {
                    id.leaveMulticast(g);
                }
                id.close();
            }
            finally
            {
                resources.close();
            }
        }
    }

    private static InetAddress group() throws Exception
    {
        final ThreadLocalRandom r = ThreadLocalRandom.current();
        return InetAddress.getByName("239.7." + r.nextInt(1, 255) + "." + r.nextInt(1, 255));
    }

    @Test
    void datagramsToTheGroupReachEveryOtherMember() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetAddress group = group();
        final InetAddress local = InetAddress.getByName("127.0.0.1");
        try (EventChannel channel = EventChannel.create();
             Member sender = new Member(channel, local);
             Member b = new Member(channel, local);
             Member c = new Member(channel, local))
        {
            b.join(group);
            c.join(group);
            sender.join(group);
            final Completion wc = new Completion();
            try (AddressHandle ah = sender.resources.pd.createAh(sender.joined.addressVector()))
            {
                for (int m = 0; m < 3; m++)
                {
                    final byte[] text = ("multicast datagram " + m + " of 3" + "!".repeat(m * 50))
                        .getBytes(StandardCharsets.US_ASCII);
                    MemorySegment.copy(text, 0, sender.resources.buf, ValueLayout.JAVA_BYTE, 0, text.length);
                    assertTrue(sender.sq.udSend(m, ah, MULTICAST_QPN, sender.joined.qkey(),
                        sender.resources.buf.address(), sender.resources.mr.lkey(), text.length,
                        SendFlags.SIGNALED | SendFlags.RING));
                    sender.awaitSend(wc, m);
                    assertArrayEquals(text, b.receive(wc, text.length, sender.qp.qpn()), "member b, datagram " + m);
                    assertArrayEquals(text, c.receive(wc, text.length, sender.qp.qpn()), "member c, datagram " + m);
                }
            }
            // after leaving, b is no member: the next datagram reaches c only
            b.id.leaveMulticast(group);
            assertEquals(Set.of(), b.id.multicastGroups());
            try (AddressHandle ah = sender.resources.pd.createAh(sender.joined.addressVector()))
            {
                final byte[] text = "after b left".getBytes(StandardCharsets.US_ASCII);
                MemorySegment.copy(text, 0, sender.resources.buf, ValueLayout.JAVA_BYTE, 0, text.length);
                assertTrue(sender.sq.udSend(9, ah, MULTICAST_QPN, sender.joined.qkey(), sender.resources.buf.address(),
                    sender.resources.mr.lkey(), text.length, SendFlags.SIGNALED | SendFlags.RING));
                sender.awaitSend(wc, 9);
                assertArrayEquals(text, c.receive(wc, text.length, sender.qp.qpn()));
                Thread.sleep(200);
                assertEquals(0, b.cq.poll(wc), "b left the group but received " + wc);
            }
        }
        leaks.assertNone();
    }

    /**
     * The unmodified mckey (rdma-core) sends {@code -C} datagrams of {@code -S} bytes to the group from another
     * process ({@code -s}: it joins, posts every send at once, unsignaled, and exits); a Java member that joined
     * before it started receives every one. mckey's send (rdma-core v44 librdmacm/examples/mckey.c post_sends) is
     * SEND_WITH_IMM of its buffer (filled with 'a' here, see below), with its own QPN as immediate data, to QPN
     * 0xffffff with the Q_Key of its MULTICAST_JOIN. What the member's completion must say, as a ConnectX does:
     * success, RECV, GRH + size bytes, the sender's QPN as source, flags GRH | WITH_IMM (a multicast datagram
     * carries a GRH: IBA 8.3.1 / the MGID is its destination), and the 40 bytes in front of the data: on IB the GRH
     * (destination the group's MGID), on RoCE v2 the IPv4 header in the last 20 bytes.
     */
    @Test
    void mckeyInAnotherProcessSendsToAJavaMember() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetAddress group = group();
        final int count = RECEIVES;
        final int size = SLOT - GRH;
        try (EventChannel channel = EventChannel.create();
             Member member = new Member(channel, InetAddress.getByName("127.0.0.1")))
        {
            member.join(group);
            final ChildProcess child = new ChildProcess("mckey-sender-" + group.getHostAddress(), List.of("stdbuf",
                "-oL", "mckey", "-m", group.getHostAddress(), "-b", "127.0.0.1", "-C", "" + count, "-S", "" + size,
                "-s"), Map.of(
                    // its "modify qpn" line names the sending QP
                    "MLX5EMU_LOG", "1",
                    // mckey sends from a malloc'ed buffer it never writes (mckey.c init_node): glibc's perturb
                    // tunable fills every allocation with ~0x9e = 'a', and tcache off so that no allocation bypasses
                    // it (glibc 2.36 malloc.c: the tcache fast path of __libc_malloc skips alloc_perturb)
                    "GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.perturb=" + 0x9e));
            final Process mckey = child.process();
            try
            {
                assertTrue(mckey.waitFor(30, TimeUnit.SECONDS), "mckey did not finish");
                final String out = Files.readString(child.out());
                assertEquals(0, mckey.exitValue(), out);
                assertTrue(out.contains("data transfers complete"), out);
                final Matcher qp = Pattern.compile("modify qpn 0x([0-9a-f]+)")
                    .matcher(Files.readString(child.err()));
                assertTrue(qp.find(), "mckey's QPN in its log");
                final int senderQpn = Integer.parseInt(qp.group(1), 16);
                final byte[] expect = new byte[size];
                Arrays.fill(expect, (byte) 'a');
                final Completion wc = new Completion();
                final boolean roce = member.resources.context.queryPort(1).isEthernet();
                final byte[] grh = roce ? expectedIpv4Header(member, InetAddress.getByName("127.0.0.1"), group, size)
                    : expectedGrh(member, size);
                for (int m = 0; m < count; m++)
                {
                    assertArrayEquals(expect, member.receive(wc, size, senderQpn), "datagram " + m);
                    assertEquals(WcOpcode.RECV, wc.opcode(), wc.toString());
                    assertEquals(WcOpcode.WC_GRH | WcOpcode.WC_WITH_IMM, wc.wcFlags(), wc.toString());
                    assertEquals(senderQpn, wc.imm(), wc.toString());
                    assertEquals(member.qp.qpn(), wc.qpn(), wc.toString());
                    // IB: the group's SL 0; RoCE: the CQE's SL bits hold the network header type there, IPv4 = 2
                    // (MLX5_CQE_L3_HDR_TYPE_IPV4), which libmlx5 (and CqPoller) report as the SL
                    assertEquals(roce ? 2 : 0, wc.sl(), wc.toString());
                    assertArrayEquals(grh, member.lastGrh, "the 40-byte GRH area of datagram " + m);
                }
                Thread.sleep(200);
                assertEquals(0, member.cq.poll(wc), "more than " + count + " datagrams: " + wc);
            }
            finally
            {
                mckey.destroy();
            }
        }
        leaks.assertNone();
    }

    /**
     * The GRH of a datagram of {@code size} bytes from a member of {@code member}'s group on the same (IB) device
     * (IBA 8.3.1: IPVer 6, TClass and FlowLabel of the group's address vector, PayLen = BTH 12 + DETH 8 + ImmDt 4
     * + payload (a multiple of 4 here, no pad) + ICRC 4 for mckey's SEND_WITH_IMM, NxtHdr 0x1b (BTH), HopLmt of the
     * group's address vector, SGID the port's GID at the address vector's index, DGID the MGID).
     */
    private static byte[] expectedGrh(final Member member, final int size)
    {
        final AddressVector av = member.joined.addressVector();
        final ByteBuffer b = ByteBuffer.allocate(GRH);
        b.putInt(6 << 28 | av.trafficClass() << 20 | av.flowLabel());
        b.putShort((short) (12 + 8 + 4 + size + 4));
        b.put((byte) 0x1b);
        b.put((byte) av.hopLimit());
        b.put(member.resources.context.queryGid(1, av.sgidIndex()).toBytes());
        b.put(av.dgid().toBytes());
        return b.array();
    }

    /**
     * The 40-byte GRH area of a RoCE v2 datagram between IPv4 addresses: a ConnectX scatters the IPv4 header into its
     * last 20 bytes (where rdma-core v44 libibverbs/verbs.c get_grh_header_version and the kernel's
     * ib_get_rdma_header_version look for it; the first 20 are undefined, zero on the emulator). RFC 791 header:
     * version 4, IHL 5, TOS = the group address vector's traffic class, total length = IPv4 20 + UDP 8 + BTH 12 +
     * DETH 8 + ImmDt 4 + payload + ICRC 4, DF, TTL = the address vector's hop limit, protocol UDP, checksum, source,
     * destination = the group.
     */
    private static byte[] expectedIpv4Header(final Member member, final InetAddress source, final InetAddress group,
        final int size)
    {
        final AddressVector av = member.joined.addressVector();
        final byte[] area = new byte[GRH];
        final ByteBuffer b = ByteBuffer.wrap(area, 20, 20);
        b.put((byte) 0x45).put((byte) av.trafficClass()).putShort((short) (20 + 8 + 12 + 8 + 4 + size + 4));
        b.putShort((short) 0).putShort((short) 0x4000).put((byte) av.hopLimit()).put((byte) 17).putShort((short) 0);
        b.put(source.getAddress()).put(group.getAddress());
        int sum = 0;
        for (int i = 20; i < 40; i += 2)
        {
            sum += (area[i] & 0xff) << 8 | area[i + 1] & 0xff;
        }
        while (sum >> 16 != 0)
        {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        area[30] = (byte) (~sum >> 8);
        area[31] = (byte) ~sum;
        return area;
    }

    /**
     * A Java member sends to the group; the unmodified mckey (rdma-core) receives in another process, counts
     * {@code -C} datagrams of {@code -S} bytes and exits 0.
     */
    @Test
    void aJavaMemberSendsToMckeyInAnotherProcess() throws Exception
    {
        final Leaks leaks = new Leaks();
        final InetAddress group = group();
        final int count = 5;
        final int size = 100;
        final ChildProcess child = new ChildProcess("mckey-receiver-" + group.getHostAddress(), List.of("stdbuf",
            "-oL", "mckey", "-m", group.getHostAddress(), "-b", "127.0.0.1", "-C", "" + count, "-S", "" + size),
            Map.of("MLX5EMU_LOG", "1"));   // its ATTACH_MCAST line says it is a member
        final Path err = child.err();
        final Process mckey = child.process();
        try (EventChannel channel = EventChannel.create();
             Member member = new Member(channel, InetAddress.getByName("127.0.0.1")))
        {
            final long deadline = System.nanoTime() + T.toNanos();
            while (!(Files.exists(err) && Files.readString(err).matches("(?s).*ATTACH_MCAST .* -> ok.*")))
            {
                assertTrue(System.nanoTime() < deadline && mckey.isAlive(), "mckey did not join within " + T);
                Thread.sleep(50);
            }
            member.join(group);
            final Completion wc = new Completion();
            try (AddressHandle ah = member.resources.pd.createAh(member.joined.addressVector()))
            {
                final byte[] text = new byte[size];
                for (int m = 0; m < count; m++)
                {
                    Arrays.fill(text, (byte) ('a' + m));
                    MemorySegment.copy(text, 0, member.resources.buf, ValueLayout.JAVA_BYTE, 0, size);
                    assertTrue(member.sq.udSend(m, ah, MULTICAST_QPN, member.joined.qkey(),
                        member.resources.buf.address(), member.resources.mr.lkey(), size,
                        SendFlags.SIGNALED | SendFlags.RING));
                    member.awaitSend(wc, m);
                }
            }
            assertTrue(mckey.waitFor(30, TimeUnit.SECONDS), "mckey did not receive " + count + " datagrams");
            final String out = Files.readString(child.out());
            assertEquals(0, mckey.exitValue(), out);
            assertTrue(out.contains("data transfers complete"), out);
        }
        finally
        {
            mckey.destroy();
        }
        leaks.assertNone();
    }
}
