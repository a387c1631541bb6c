// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.feed;

import io.mlx5j.direct.Completion;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.raw.Neighbours;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.raw.NicClock;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.tool.Mlx5jTool;
import io.mlx5j.tool.UsageException;
import io.mlx5j.wqe.UdpHeaderTemplate;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@code mlx5j feed publish | subscribe}: a small market-data feed over raw Ethernet.
 * <p>
 * The publisher sends UDP datagrams to an IPv4 multicast group from a RAW_PACKET QP, built from a {@link
 * UdpHeaderTemplate}; the NIC computes the checksums. Every send is signaled, and its completion carries the time the
 * NIC sent it; as a two-step PTP clock does, each payload reports the NIC send time of an earlier message, since a
 * frame cannot carry its own. The payload, big-endian: the sequence number, the sequence number of the latest message
 * whose send completion the publisher had polled (-1: none yet), and that message's NIC send time (nanoseconds since
 * the epoch, {@link NicClock}). The subscriber joins the group with a {@link FlowRule} (the group's MAC and address,
 * the UDP port, a flow tag), receives on its own RAW_PACKET QP, finds gaps and reorders by sequence number, and
 * measures one-way latency as its NIC's receive time of a message minus the publisher's NIC send time of the same
 * message: both NIC clocks, one clock on the emulated device, two PTP-synchronised clocks between hosts. Both print a
 * progress line every second and a summary at the end, with the port's counters
 * ({@link io.mlx5j.verbs.PortCounters}).
 */
public final class FeedCommand
{
    public static final String USAGE = String.join("\n",
        "usage: mlx5j feed publish   [options]   send COUNT multicast UDP frames at RATE per second",
        "       mlx5j feed subscribe [options]   join the group, count gaps/reorders, one-way latency from NIC time",
        "  -d, --ib-dev NAME      device (default: the first)",
        "  -i, --ib-port N        port (default 1; it must be Ethernet)",
        "  -g, --group A.B.C.D    IPv4 multicast group (default 239.1.1.1); publish also takes a unicast address,",
        "                         sent to its next hop's MAC from the kernel's route and neighbour tables",
        "  -p, --port N           UDP destination port (default 31001)",
        "  -n, --count N          messages to send / to wait for (default 10000)",
        "  -r, --rate N           publish: messages per second, 0 = as fast as possible (default 100000)",
        "  -s, --size N           publish: UDP payload bytes, at least 24 (default 64)",
        "  -t, --timeout S        subscribe: stop S seconds after the last message (default 5)",
        "  -w, --wait S           subscribe: give up when no first message came within S seconds (default 0: wait",
        "                         for the publisher however late it starts, with a progress line every second)",
        "      --tag N            subscribe: flow tag of the rule (default 1)");

    private static final int DEFAULT_GROUP = 0xef010101;
    private static final long SRC_MAC = 0x02004d4c5835L;    // locally administered
    private static final int SRC_IP = 0x0a000001;
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int RING = 256;
    /** The payload's fixed part: sequence number, reported sequence number, its NIC send time. */
    private static final int PAYLOAD_HEADER = 24;

    private FeedCommand()
    {
    }

    /** Parsed options of either side. */
    record Options(boolean publish, String device, int ibPort, int group, int port, long count, long rate, int size,
        int timeoutSeconds, int waitSeconds, int tag)
    {
    }

    public static Options parse(final String[] args)
    {
        if (args.length == 0 || !(args[0].equals("publish") || args[0].equals("subscribe")))
        {
            throw new UsageException("feed needs 'publish' or 'subscribe'");
        }
        String device = null;
        int ibPort = 1;
        int group = DEFAULT_GROUP;
        int port = 31001;
        long count = 10000;
        long rate = 100000;
        int size = 64;
        int timeout = 5;
        int wait = 0;
        int tag = 1;
        for (int i = 1; i < args.length; i++)
        {
            final String a = args[i];
            if (a.equals("--emulated"))
            {
                continue;   // the launcher's switch: already acted upon
            }
            if (i + 1 >= args.length)
            {
                throw new UsageException("option " + a + " needs a value");
            }
            final String v = args[++i];
            switch (a)
            {
                case "-d", "--ib-dev" -> device = v;
                case "-i", "--ib-port" -> ibPort = number(a, v, 1, 255);
                case "-g", "--group" -> group = ipv4(v);
                case "-p", "--port" -> port = number(a, v, 1, 65535);
                case "-n", "--count" -> count = number(a, v, 1, Integer.MAX_VALUE);
                case "-r", "--rate" -> rate = number(a, v, 0, Integer.MAX_VALUE);
                case "-s", "--size" -> size = number(a, v, PAYLOAD_HEADER, 1472);
                case "-t", "--timeout" -> timeout = number(a, v, 1, 3600);
                case "-w", "--wait" -> wait = number(a, v, 0, 86400);
                case "--tag" -> tag = number(a, v, 0, 0xffffff);
                default -> throw new UsageException("unknown option " + a);
            }
        }
        if (!multicast(group) && (!args[0].equals("publish") || group == 0))
        {
            throw new UsageException("--group must be an IPv4 multicast address (224.0.0.0/4)");
        }
        return new Options(args[0].equals("publish"), device, ibPort, group, port, count, rate, size, timeout, wait,
            tag);
    }

    private static int number(final String option, final String v, final int min, final int max)
    {
        try
        {
            final long n = Long.parseLong(v);
            if (n < min || n > max)
            {
                throw new UsageException(option + " must be in " + min + ".." + max + ": " + v);
            }
            return (int) n;
        }
        catch (final NumberFormatException e)
        {
            throw new UsageException(option + " needs a number: " + v);
        }
    }

    private static int ipv4(final String v)
    {
        final String[] p = v.split("\\.");
        if (p.length != 4)
        {
            throw new UsageException("not an IPv4 address: " + v);
        }
        int ip = 0;
        for (final String part : p)
        {
            ip = ip << 8 | number("--group", part, 0, 255);
        }
        return ip;
    }

    public static int run(final Options o, final PrintStream out, final PrintStream err)
    {
        try (Context ctx = o.device() == null ? Context.openFirst() : Context.open(o.device()))
        {
            if (!ctx.queryPort(o.ibPort()).isEthernet())
            {
                throw new IllegalStateException("port " + o.ibPort() + " of " + ctx.deviceName()
                    + " is not Ethernet: the feed needs raw packet QPs (on the emulated device: emulator/mlx5emu "
                    + "--link eth)");
            }
            return o.publish() ? publish(ctx, o, out, err) : subscribe(ctx, o, out, err);
        }
    }

    // ------------------------------------------------------------------------------------------------ publisher

    private static int publish(final Context ctx, final Options o, final PrintStream out, final PrintStream err)
    {
        final ProtectionDomain pd = ctx.allocPd();
        final CompletionQueue cq = ctx.createCq(RING);
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(RING).maxRecvWr(1)
            .maxSendSge(2).maxRecvSge(1).maxInlineData(128).build());
        qp.activate(o.ibPort());
        final RawSendQueue sq = RawSendQueue.of(qp, DoorbellMode.AUTO).signalEvery(RING / 4);
        final CqPoller dcq = CqPoller.of(cq).attach(sq.queue());
        final Completion c = new Completion();
        // a unicast destination: the MAC of the hop the kernel would send it to, resolved once, before the loop
        final Neighbours.Hop hop = multicast(o.group()) ? null : Neighbours.resolve(o.group());
        final NicClock clock = NicClock.of(ctx);
        final SendTimes sent = new SendTimes(clock);
        if (hop != null)
        {
            out.println("unicast to " + ip(o.group()) + ": next hop " + hop);
        }
        // Frame buffers used round robin: the NIC reads a gathered frame when it transmits it, later than the post,
        // so a buffer may be rewritten only once the WQE that used it has retired. At most wqe_cnt WQEs are
        // outstanding, so with 2 * wqe_cnt buffers the one about to be rewritten is always retired. Each buffer
        // holds its own header template followed by the payload.
        final int slots = 2 * qp.rings().sqWqeCnt();
        final int frameBytes = UdpHeaderTemplate.LENGTH + o.size();
        final int stride = (frameBytes + 63) & ~63;
        final MemoryRegion mr = pd.register(Arena.ofAuto().allocate((long) slots * stride, 4096),
            io.mlx5j.verbs.Access.LOCAL_WRITE);
        final UdpHeaderTemplate[] headers = new UdpHeaderTemplate[slots];
        for (int i = 0; i < slots; i++)
        {
            headers[i] = new UdpHeaderTemplate(mr.memory().asSlice((long) i * stride, UdpHeaderTemplate.LENGTH))
                .srcMac(SRC_MAC).srcIp(SRC_IP).srcPort(o.port());
            if (hop == null)
            {
                headers[i].multicast(o.group(), o.port());
            }
            else
            {
                headers[i].dst(hop.mac(), o.group(), o.port());
            }
        }
        final int inline = frameBytes - sq.minInline() <= sq.maxInlineData() ? SendFlags.INLINE : 0;
        final long interval = o.rate() == 0 ? 0 : 1_000_000_000L / o.rate();

        final long start = System.nanoTime();
        long next = start;
        long lastReport = start;
        long reported = 0;
        for (long seq = 0; seq < o.count(); seq++)
        {
            if (interval > 0)
            {
                while (System.nanoTime() - next < 0)
                {
                    Thread.onSpinWait();
                }
                next += interval;
            }
            final int slot = (int) (seq % slots);
            final long frame = (long) slot * stride;
            headers[slot].prepare(o.size(), (int) seq);
            mr.memory().set(BE64, frame + UdpHeaderTemplate.LENGTH, seq);
            mr.memory().set(BE64, frame + UdpHeaderTemplate.LENGTH + 8, sent.seq);
            mr.memory().set(BE64, frame + UdpHeaderTemplate.LENGTH + 16, sent.nanos);
            // every send signaled: its completion's timestamp is the NIC's send time, reported in a later frame
            final int flags = SendFlags.IP_CSUM | SendFlags.RING | SendFlags.SIGNALED | inline;
            while (!sq.send(seq, mr.address() + frame, mr.lkey(), frameBytes, flags))
            {
                drain(dcq, c, sent);
            }
            drain(dcq, c, sent);
            final long now = System.nanoTime();
            if (now - lastReport >= 1_000_000_000L)
            {
                err.printf(Locale.ROOT, "mlx5j feed: published %d, %.0f msg/s%n", seq + 1,
                    (seq + 1 - reported) * 1e9 / (now - lastReport));
                lastReport = now;
                reported = seq + 1;
            }
        }
        while (sq.outstanding() > 0)
        {
            drain(dcq, c, sent);
            Thread.onSpinWait();
        }
        final double seconds = (System.nanoTime() - start) * 1e-9;
        out.printf(Locale.ROOT, "published %d messages of %d bytes to %s:%d in %.3f s (%.0f msg/s)%s%n", o.count(),
            o.size(), ip(o.group()), o.port(), seconds, o.count() / seconds, Mlx5jTool.platform());
        out.println("send times: " + clockSource(ctx));
        clock.close();
        Mlx5jTool.printPortCounters(ctx.deviceName(), o.ibPort(), out);
        return 0;
    }

    /** The latest send completion polled: its wr_id (the sequence number) and NIC send time in nanoseconds. */
    private static final class SendTimes
    {
        private final NicClock clock;
        long seq = -1;
        long nanos;

        SendTimes(final NicClock clock)
        {
            this.clock = clock;
        }
    }

    private static void drain(final CqPoller dcq, final Completion c, final SendTimes sent)
    {
        while (dcq.poll(c) != 0)
        {
            if (!c.isSuccess())
            {
                throw new IllegalStateException("send completion " + c);
            }
            sent.seq = c.wrId();
            sent.nanos = sent.clock.toNanos(c.timestamp());
        }
    }

    /** Where the timestamps come from, for the summary lines. */
    static String clockSource(final Context ctx)
    {
        return Mlx5jTool.isEmulated()
            ? "NIC clock of " + ctx.deviceName() + " (emulated: one clock for every process, so publisher and "
                + "subscriber times compare exactly)"
            : "NIC clock of " + ctx.deviceName() + " (its PHC, read through the clock-info page; between hosts "
                + "only as close as PTP keeps the two PHCs, e.g. ptp4l on each port)";
    }

    // ------------------------------------------------------------------------------------------------ subscriber

    private static int subscribe(final Context ctx, final Options o, final PrintStream out, final PrintStream err)
    {
        final ProtectionDomain pd = ctx.allocPd();
        final CompletionQueue cq = ctx.createCq(RING);
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(1).maxRecvWr(RING)
            .maxSendSge(1).maxRecvSge(1).maxInlineData(0).build());
        qp.activate(o.ibPort());
        final int stride = 2048;
        final MemoryRegion mr = pd.register(Arena.ofAuto().allocate((long) RING * stride, 4096),
            io.mlx5j.verbs.Access.LOCAL_WRITE);
        final RecvQueue rq = RecvQueue.of(qp);
        for (int i = 0; i < RING; i++)
        {
            rq.post(i, mr.address() + (long) i * stride, mr.lkey(), stride);
        }
        rq.ring();
        final CqPoller dcq = CqPoller.of(cq).attach(rq);
        final Completion c = new Completion();
        final long[] latency = new long[(int) Math.min(o.count(), 10_000_000)];
        // NIC receive time of each message by sequence number, for the report of its send time in a later frame
        final long[] arrival = new long[latency.length];
        try (FlowRule rule = FlowRule.builder(qp, o.ibPort()).multicast(o.group()).udpDst(o.port()).tag(o.tag())
            .create(); NicClock clock = NicClock.of(ctx))
        {
            out.printf(Locale.ROOT, "subscribed to %s:%d (flow tag %d)%s%n", ip(o.group()), o.port(), o.tag(),
                Mlx5jTool.platform());
            out.flush();
            long received = 0;
            int samples = 0;
            long highest = -1;
            long reordered = 0;
            long duplicates = 0;
            final java.util.BitSet seen = new java.util.BitSet((int) Math.min(o.count(), Integer.MAX_VALUE - 1));
            long badTag = 0;
            long badCsum = 0;
            long first = 0;
            long lastArrival = System.nanoTime();
            long lastReport = lastArrival;
            long reportedCount = 0;
            final long timeout = o.timeoutSeconds() * 1_000_000_000L;
            // Until the first message the subscriber waits for the publisher, which a person starts by hand in
            // another shell some seconds later (with the after-the-last-message timeout counted from here, the
            // documented two-shell run ended with "received 0 messages" before the publisher had started).
            final long wait = o.waitSeconds() * 1_000_000_000L;
            while (received < o.count())
            {
                if (dcq.poll(c) == 0)
                {
                    final long now = System.nanoTime();
                    if (received == 0 ? wait > 0 && now - lastArrival > wait : now - lastArrival > timeout)
                    {
                        break;
                    }
                    if (now - lastReport >= 1_000_000_000L)
                    {
                        err.printf(Locale.ROOT, "mlx5j feed: received %d (%.0f msg/s), lost %d, reordered %d%n",
                            received, (received - reportedCount) * 1e9 / (now - lastReport),
                            Math.max(0, highest + 1 - seen.cardinality()), reordered);
                        lastReport = now;
                        reportedCount = received;
                    }
                    Thread.onSpinWait();
                    continue;
                }
                if (!c.isSuccess())
                {
                    throw new IllegalStateException("receive completion " + c);
                }
                lastArrival = System.nanoTime();
                if (received == 0)
                {
                    first = lastArrival;
                }
                final long buffer = c.frameAddress();
                // the frame, read where the NIC wrote it: the receive buffer the completion names
                final long at = buffer - mr.address();
                final long seq = mr.memory().get(BE64, at + UdpHeaderTemplate.LENGTH);
                final long reported = mr.memory().get(BE64, at + UdpHeaderTemplate.LENGTH + 8);
                final long sentNanos = mr.memory().get(BE64, at + UdpHeaderTemplate.LENGTH + 16);
                if (seq < 0 || seq >= o.count() || seen.get((int) seq))
                {
                    duplicates++;       // (or out of range: not from this run)
                }
                else
                {
                    seen.set((int) seq);
                    if (seq < highest)
                    {
                        reordered++;
                    }
                    highest = Math.max(highest, seq);
                }
                badTag += c.flowTag() != o.tag() ? 1 : 0;
                badCsum += c.ipCsumOk() ? 0 : 1;
                if (seq >= 0 && seq < arrival.length)
                {
                    arrival[(int) seq] = clock.toNanos(c.timestamp());
                }
                if (reported >= 0 && reported < arrival.length && arrival[(int) reported] != 0
                    && samples < latency.length)
                {
                    latency[samples++] = arrival[(int) reported] - sentNanos;
                    arrival[(int) reported] = 0;    // one sample per message, even if reported twice
                }
                received++;
                rq.post(c.wrId(), buffer, mr.lkey(), stride);
                rq.ring();
            }
            final double seconds = received > 1 ? (lastArrival - first) * 1e-9 : 0;
            final long unique = seen.cardinality();
            final long lost = Math.max(0, highest + 1 - unique);
            final int firstGap = seen.nextClearBit(0);
            out.printf(Locale.ROOT, "received %d messages, lost %d, reordered %d, duplicated %d, rate %.0f msg/s%s%n",
                received, lost, reordered, duplicates, seconds > 0 ? (received - 1) / seconds : 0.0,
                lost > 0 ? " (first gap at sequence " + firstGap + ")" : "");
            final int n = samples;
            if (n > 0)
            {
                final long[] sorted = Arrays.copyOf(latency, n);
                Arrays.sort(sorted);
                out.printf(Locale.ROOT, "one-way latency (subscriber's NIC receive time - publisher's NIC send time, "
                    + "%d messages): min %.2f us, p50 %.2f us, p99 %.2f us, p99.9 %.2f us, max %.2f us%n", n,
                    sorted[0] / 1e3, pct(sorted, 0.50), pct(sorted, 0.99), pct(sorted, 0.999), sorted[n - 1] / 1e3);
            }
            out.println("receive times: " + clockSource(ctx));
            out.printf(Locale.ROOT, "checks: %d with another flow tag, %d without IBV_WC_IP_CSUM_OK%n", badTag,
                badCsum);
            Mlx5jTool.printPortCounters(ctx.deviceName(), o.ibPort(), out);
            return received == o.count() && lost == 0 && duplicates == 0 && badTag == 0 && badCsum == 0 ? 0 : 1;
        }
    }

    /** Percentile {@code p} of sorted samples in microseconds (nearest rank). */
    private static double pct(final long[] sorted, final double p)
    {
        final int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1e3;
    }

    /** 224.0.0.0/4. */
    private static boolean multicast(final int ip)
    {
        return (ip >>> 28) == 0xe;
    }

    private static String ip(final int ip)
    {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xff) + "." + ((ip >>> 8) & 0xff) + "." + (ip & 0xff);
    }
}
