package io.mlx5j.cm;

import io.mlx5j.direct.AddressHandle;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.DirectCq;
import io.mlx5j.direct.DirectRecvQueue;
import io.mlx5j.direct.DirectSendQueue;
import io.mlx5j.direct.QpType;
import io.mlx5j.direct.QueuePair;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

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

    /** One member: a datagram id bound to 127.0.0.1, its UD QP, receives posted, joined to {@code group}. */
    private static final class Member implements AutoCloseable
    {
        final Endpoint resources = new Endpoint();
        final CmId id;
        final QueuePair qp;
        final DirectSendQueue sq;
        final DirectRecvQueue rq;
        final DirectCq cq;
        CmEvent joined;

        Member(final EventChannel channel, final InetAddress local)
        {
            id = channel.createId(PortSpace.UDP);
            id.bind(new InetSocketAddress(local, 0));
            qp = resources.create(id, QpType.UD);
            id.attachDatagramQp(qp);
            sq = DirectSendQueue.of(qp, DoorbellMode.AUTO);
            rq = DirectRecvQueue.of(qp);
            cq = DirectCq.of(resources.cq).attach(sq).attach(rq);
            // receives of GRH + 256 bytes, one per 512-byte slot of the 4 KiB buffer's upper half
            for (int i = 0; i < 4; i++)
            {
                assertTrue(rq.post(100 + i, slot(i), resources.mr.lkey(), GRH + 256));
            }
            rq.ring();
        }

        long slot(final int i)
        {
            return resources.buf.address() + 2048 + 512L * i;
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
            assertTrue(wc.wrId() >= 100 && wc.wrId() < 104, wc.toString());
            assertEquals(GRH + expectLength, wc.byteLen(), wc.toString());
            if (expectSourceQp >= 0)
            {
                assertEquals(expectSourceQp, wc.srcQp(), wc.toString());
            }
            final int i = (int) wc.wrId() - 100;
            final byte[] data = MemorySegment.ofAddress(slot(i) + GRH).reinterpret(expectLength)
                .toArray(ValueLayout.JAVA_BYTE);
            assertTrue(rq.post(wc.wrId(), slot(i), resources.mr.lkey(), GRH + 256));
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
                    assertTrue(rq.post(wc.wrId(), slot((int) wc.wrId() - 100), resources.mr.lkey(), GRH + 256));
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
        final Path dir = Path.of("target", "interop");
        Files.createDirectories(dir);
        final String name = "mckey-receiver-" + group.getHostAddress();
        final ProcessBuilder pb = new ProcessBuilder(List.of("stdbuf", "-oL", "mckey", "-m", group.getHostAddress(),
            "-b", "127.0.0.1", "-C", "" + count, "-S", "" + size));
        pb.environment().put("MLX5EMU_LOG", "1");   // its ATTACH_MCAST line says it is a member
        final Path err = dir.resolve(name + ".err");
        final Process mckey = pb.redirectOutput(dir.resolve(name + ".out").toFile())
            .redirectError(err.toFile()).start();
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
            final String out = Files.readString(dir.resolve(name + ".out"));
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
