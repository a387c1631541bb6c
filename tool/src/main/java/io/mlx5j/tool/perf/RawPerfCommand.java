package io.mlx5j.tool.perf;

import io.mlx5j.direct.Context;
import io.mlx5j.direct.PortAttributes;
import io.mlx5j.direct.ProtectionDomain;
import io.mlx5j.tool.DevicesCommand;
import io.mlx5j.tool.perf.report.BandwidthStats;
import io.mlx5j.tool.perf.report.LatencyStats;
import io.mlx5j.tool.perf.report.ResultTable;

import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code mlx5j perf raw_lat | raw_bw}: perftest's raw_ethernet_lat / raw_ethernet_bw on the Java raw path
 * ({@link io.mlx5j.direct.RawSendQueue}, {@link io.mlx5j.direct.DirectRecvQueue}, {@link io.mlx5j.direct.DirectCq},
 * {@link io.mlx5j.direct.FlowRule}). Loopback runs a client QP and a server QP in this process on one thread;
 * {@code --server} / {@code --client} run one side against another process, mlx5j or perftest. As in perftest's raw
 * tools nothing is exchanged but the measured frames: each side knows the other's addresses from its command line, so
 * the server must be ready first; it is once it has printed the result table's header (flow rule installed and
 * receives posted before that line).
 */
final class RawPerfCommand
{
    private RawPerfCommand()
    {
    }

    /** Runs the raw test of {@code o} on the open {@code context} (an mlx5 device, {@link PerfCommand} checked). */
    static int run(final Context context, final PerfOptions o, final PrintStream out, final PrintStream err)
    {
        final PortAttributes port = context.queryPort(o.ibPort());
        if (!port.isEthernet())
        {
            throw new IllegalStateException("port " + o.ibPort() + " of " + context.deviceName() + " is not "
                + "Ethernet: raw Ethernet tests need a RAW_PACKET QP on an Ethernet port (the emulated device: "
                + "emulator/mlx5emu --link eth, which ./mlx5j uses for raw_* tests)");
        }
        try (ProtectionDomain pd = context.allocPd())
        {
            return o.role() == PerfOptions.Role.LOOPBACK
                ? loopback(context, pd, port, o, out, err)
                : oneSide(context, pd, port, o, out, err);
        }
    }

    private static int loopback(final Context context, final ProtectionDomain pd, final PortAttributes port,
        final PerfOptions o, final PrintStream out, final PrintStream err)
    {
        try (RawEndpoint server = new RawEndpoint(context, pd, o, true);
            RawEndpoint client = new RawEndpoint(context, pd, o, false))
        {
            // both QPs are posted by this thread; if they were given one BlueFlame register its object must be the
            // shared (locked) kind
            final boolean shared = server.bfRegister() == client.bfRegister();
            server.start(shared);
            client.start(shared);
            banner(out, o, context, port, client, server,
                "loopback: a client QP and a server QP in this process, one thread");
            final Progress progress = new Progress(err, o.test().cliName(), o.iterations(), o.progress());
            final long stall = o.timeout().toNanos();
            if (o.duration() > 0)
            {
                out.println(o.test().isLatency() ? latencyDurationHeader() : bandwidthHeader(o.reportGbits()));
                final RawDurationLoops.Result r = o.test().isLatency() ? RawDurationLoops.lat(client, server, stall)
                    : RawDurationLoops.bwClient(client, server, stall);
                printDuration(out, o, r, o.test().isLatency()
                    ? client.checkSummary() + " (client); " + server.checkSummary() + " (server)"
                    : "server received " + server.checkSummary());
            }
            else if (o.test().isLatency())
            {
                out.println(ResultTable.latencyHeader());
                final long[] samples = RawPerfLoops.latClient(client, server, progress, stall);
                progress.finish(o.iterations());
                printLatency(out, o, samples, samples.length, client.checkSummary() + " (client); "
                    + server.checkSummary() + " (server)");
            }
            else
            {
                out.println(bandwidthHeader(o.reportGbits()));
                if (!o.noPeak())
                {
                    client.recordTimes();
                }
                final long nanos = RawPerfLoops.bwClient(client, server, progress, stall);
                progress.finish(o.iterations());
                printBandwidth(out, o, nanos, o.noPeak() ? null : client, "server received "
                    + server.checkSummary());
            }
            return 0;
        }
    }

    private static int oneSide(final Context context, final ProtectionDomain pd, final PortAttributes port,
        final PerfOptions o, final PrintStream out, final PrintStream err)
    {
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        try (RawEndpoint e = new RawEndpoint(context, pd, o, server))
        {
            e.start(false);
            banner(out, o, context, port, e, null, server
                ? "server: flow rule installed, receives posted; start the client now (no TCP exchange)"
                : "client: sending to the server given by -E/-J/-K (no TCP exchange)");
            // the header line is what a waiting script (or test) takes as "the server is ready"
            out.println(o.test().isLatency()
                ? (o.duration() > 0 ? latencyDurationHeader() : ResultTable.latencyHeader())
                : bandwidthHeader(o.reportGbits()));
            out.flush();
            final Progress progress = new Progress(err, o.test().cliName(), o.iterations(), o.progress());
            final long stall = o.timeout().toNanos();
            if (o.duration() > 0)
            {
                final RawDurationLoops.Result r = o.test().isLatency() ? RawDurationLoops.lat(e, null, stall)
                    : server ? RawDurationLoops.bwServer(e, stall) : RawDurationLoops.bwClient(e, null, stall);
                printDuration(out, o, r, e.receives() ? (server && !o.test().isLatency() ? "received " : "")
                    + e.checkSummary() : "sent frames of " + e.length + " bytes");
            }
            else if (o.test().isLatency())
            {
                final long[] samples = server ? RawPerfLoops.latServer(e, progress, stall)
                    : RawPerfLoops.latClient(e, null, progress, stall);
                progress.finish(o.iterations());
                printLatency(out, o, samples, server ? (int) Math.max(1, o.iterations() - 1) : samples.length,
                    e.checkSummary());
            }
            else if (server)
            {
                final long nanos = RawPerfLoops.bwServer(e, progress, stall);
                progress.finish(o.iterations());
                printBandwidth(out, o, nanos, null, "received " + e.checkSummary()
                    + "; timed from the first frame to the last, as perftest's server");
            }
            else
            {
                if (!o.noPeak())
                {
                    e.recordTimes();
                }
                final long nanos = RawPerfLoops.bwClient(e, null, progress, stall);
                progress.finish(o.iterations());
                printBandwidth(out, o, nanos, o.noPeak() ? null : e, "sent " + o.iterations() + " frames of " + e.length
                    + " bytes; timed from the first post to the last send completion");
            }
            return 0;
        }
    }

    // ------------------------------------------------------------------------------------------ output

    /** {@code loopbackServer}: in loopback the server QP (its flow rule is shown too), else null. */
    private static void banner(final PrintStream out, final PerfOptions o, final Context context,
        final PortAttributes p, final RawEndpoint e, final RawEndpoint loopbackServer, final String connection)
    {
        out.println(ResultTable.LINE);
        out.println("                    Raw Ethernet " + (o.test().isLatency() ? "Send Latency" : "Send BW")
            + " Test (mlx5j Java direct path)");
        out.printf(Locale.ROOT, " Device         : %s port %d (%s, Ethernet)%n", context.deviceName(), p.port(),
            DevicesCommand.portState(p.state()));
        out.printf(Locale.ROOT, " Connection     : RawEth, %s%n", connection);
        out.printf(Locale.ROOT, " Mtu            : %d[B]     Doorbell : %s     Eth min inline : %d[B]%n", o.raw().mtu(),
            e.sq.queue().mode().name().toLowerCase(Locale.ROOT), e.sq.minInline());
        out.printf(Locale.ROOT, " %s : %d     CQ Moderation : %d     RX depth : %s%n",
            o.test().isLatency() ? "Send depth    " : "TX depth      ",
            o.test().isLatency() ? RawEndpoint.LAT_SEND_DEPTH : o.txDepth(),
            e.signalInterval, e.receives() ? Integer.toString(o.rxDepth()) : "none");
        out.printf(Locale.ROOT, " Inline         : %s (inline size %d, QP max %d)%n", o.inline() ? "on" : "off",
            o.inlineSize(), e.sq.maxInlineData());
        out.println(" Frame sent     : " + (o.test().isLatency() || !e.server
            ? describeFrame(o, e.server) + ", " + e.length + " bytes + 4 FCS"
            : "none (a raw_bw server only receives)"));
        if (e.server && !o.test().isLatency())
        {
            out.println(" Frame expected : " + describeFrame(o, false) + ", " + e.length + " bytes + 4 FCS");
        }
        out.println(" Flow rule      : " + (e.rule != null ? e.rule.toString()
            : "none (a raw_bw client receives nothing; perftest's has none either)"));
        if (loopbackServer != null)
        {
            out.println(" Server's rule  : " + loopbackServer.rule);
        }
        for (final String note : o.notes())
        {
            out.println(" note: " + note);
        }
        out.println(ResultTable.LINE);
    }

    private static String describeFrame(final PerfOptions o, final boolean fromServer)
    {
        final long src = fromServer ? o.raw().serverMac() : o.raw().clientMac();
        final long dst = fromServer ? o.raw().clientMac() : o.raw().serverMac();
        final StringBuilder sb = new StringBuilder();
        sb.append(src < 0 ? "any" : RawOptions.macText(src)).append(" -> ").append(RawOptions.macText(dst));
        if (o.raw().hasIp())
        {
            sb.append(", IPv4 ").append(RawOptions.ipText(fromServer ? o.raw().serverIp() : o.raw().clientIp()))
                .append(" -> ").append(RawOptions.ipText(fromServer ? o.raw().clientIp() : o.raw().serverIp()));
            if (o.raw().hasPorts())
            {
                sb.append(o.raw().tcp() ? ", TCP " : ", UDP ")
                    .append(fromServer ? o.raw().serverPort() : o.raw().clientPort())
                    .append(" -> ").append(fromServer ? o.raw().clientPort() : o.raw().serverPort());
            }
        }
        else
        {
            sb.append(o.raw().ethertype() >= 0 ? String.format(Locale.ROOT, ", ethertype 0x%04x", o.raw().ethertype())
                : ", 802.3 length " + (o.size() - RawFrame.RAWETH_ADDITION));
        }
        return sb.toString();
    }

    private static void printLatency(final PrintStream out, final PerfOptions o, final long[] samples,
        final int count, final String check)
    {
        final LatencyStats s = LatencyStats.of(samples, count, 2);
        out.println(ResultTable.latencyRow(o.size(), o.iterations(), s));
        out.println(ResultTable.LINE);
        out.println(" " + count + " samples (round trip / 2); data check: " + check);
    }

    /**
     * perftest's bandwidth row (REPORT_FMT under RESULT_FMT / RESULT_FMT_G), BW peak column included; {@code peak}:
     * the client's endpoint when it kept the times for the peak, else null (0.00, as perftest prints without one).
     */
    private static void printBandwidth(final PrintStream out, final PerfOptions o, final long nanos,
        final RawEndpoint peak, final String check)
    {
        final BandwidthStats s = new BandwidthStats(o.size(), o.iterations(), nanos);
        final double peakBw = peak == null ? 0 : RawPeak.peak(o.size(), RawPeak.bestNanosPerMessage(peak.postedAt,
            peak.completedAt, (int) o.iterations(), peak.signalInterval), o.reportGbits());
        out.println(bandwidthRow(o.size(), o.iterations(), peakBw, o.reportGbits() ? s.gbitPerSec() : s.mbPerSec(),
            s.mpps()));
        out.println(ResultTable.LINE);
        out.println(String.format(Locale.ROOT, " %.3f ms; data check: %s", nanos * 1e-6, check));
    }

    /** perftest v4.5 perftest_parameters.h RESULT_FMT_LAT_DUR: the latency table of a duration run. */
    static final String[] LATENCY_DURATION_COLUMNS = {"#bytes", "#iterations", "t_avg[usec]", "tps average"};

    static String latencyDurationHeader()
    {
        return row(LATENCY_DURATION_COLUMNS, LATENCY_DURATION_COLUMNS);
    }

    /**
     * The row of a duration run: the iterations counted in the sample window; raw_lat: t_avg = window / iterations
     * / 2 and tps = iterations per second (print_report_lat_duration); raw_bw: perftest's bandwidth row without
     * peak (perftest keeps no per-message times in this mode).
     */
    private static void printDuration(final PrintStream out, final PerfOptions o, final RawDurationLoops.Result r,
        final String check)
    {
        if (o.test().isLatency())
        {
            out.println(row(LATENCY_DURATION_COLUMNS, Long.toString(o.size()), Long.toString(r.count()),
                String.format(Locale.ROOT, "%.2f", r.nanos() / 1e3 / 2 / r.count()),
                String.format(Locale.ROOT, "%.2f", r.count() / (r.nanos() * 1e-9))));
        }
        else
        {
            final BandwidthStats s = new BandwidthStats(o.size(), r.count(), r.nanos());
            out.println(bandwidthRow(o.size(), r.count(), 0, o.reportGbits() ? s.gbitPerSec() : s.mbPerSec(),
                s.mpps()));
        }
        out.println(ResultTable.LINE);
        out.println(String.format(Locale.ROOT, " -D %d: %d iterations in the %.3f s sample window (%d s warm-up and "
            + "cool-down each); data check: %s", o.duration(), r.count(), r.nanos() * 1e-9, o.duration() / 4, check));
    }

    // perftest v4.5 perftest_parameters.h RESULT_FMT / RESULT_FMT_G: the raw tools print the BW peak column
    static final String[] BANDWIDTH_COLUMNS = {"#bytes", "#iterations", "BW peak[MB/sec]", "BW average[MB/sec]",
        "MsgRate[Mpps]"};
    static final String[] BANDWIDTH_COLUMNS_GBITS = {"#bytes", "#iterations", "BW peak[Gb/sec]",
        "BW average[Gb/sec]", "MsgRate[Mpps]"};

    static String bandwidthHeader(final boolean gbits)
    {
        final String[] c = gbits ? BANDWIDTH_COLUMNS_GBITS : BANDWIDTH_COLUMNS;
        return row(c, c);
    }

    static String bandwidthRow(final long size, final long iterations, final double peak, final double bw,
        final double mpps)
    {
        return row(BANDWIDTH_COLUMNS, Long.toString(size), Long.toString(iterations),
            String.format(Locale.ROOT, "%.2f", peak), String.format(Locale.ROOT, "%.2f", bw),
            String.format(Locale.ROOT, "%.6f", mpps));
    }

    /** Values left-aligned under the start of their titles, as {@link ResultTable} lays out its tables. */
    private static String row(final String[] columns, final String... values)
    {
        final StringBuilder sb = new StringBuilder(" ");
        for (int i = 0; i < columns.length; i++)
        {
            sb.append(values[i]);
            if (i < columns.length - 1)
            {
                final int width = Math.max(columns[i].length(), 11) + 2;
                sb.append(" ".repeat(Math.max(1, width - values[i].length())));
            }
        }
        return sb.toString();
    }
}
