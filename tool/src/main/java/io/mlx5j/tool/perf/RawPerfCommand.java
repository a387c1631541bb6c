// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.tool.DevicesCommand;
import io.mlx5j.tool.perf.report.BandwidthPeak;
import io.mlx5j.tool.perf.report.BandwidthStats;
import io.mlx5j.tool.perf.report.LatencyStats;
import io.mlx5j.tool.perf.report.ResultTable;

import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code mlx5j perf raw_lat | raw_bw}: perftest's raw_ethernet_lat / raw_ethernet_bw on the Java raw path
 * ({@link io.mlx5j.raw.RawSendQueue}, {@link io.mlx5j.direct.RecvQueue}, {@link io.mlx5j.direct.CqPoller},
 * {@link io.mlx5j.raw.FlowRule}), with the measuring loops every test uses ({@link PerfLoops}: raw_lat is
 * send_lat's ping-pong, raw_bw send_bw's stream). Loopback runs a client QP and a server QP in this process on one
 * thread; {@code --server} / {@code --client} run one side against another process, mlx5j or perftest. As in
 * perftest's raw tools nothing is exchanged but the measured frames: each side knows the other's addresses from its
 * command line, so the server must be ready first; it is once it has printed the result table's header (flow rule
 * installed and receives posted before that line).
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
            out.println(header(o));
            final Progress progress = progress(err, o);
            final long stall = o.timeout().toNanos();
            final boolean latency = o.test().isLatency();
            if (latency)
            {
                final PerfLoops.Latency r = PerfLoops.sendLat(client, server, o, progress, stall);
                final String check = client.checkSummary() + " (client); " + server.checkSummary() + " (server)";
                if (r.timed())
                {
                    printDuration(out, o, r.iterations(), r.sampleNanos(), check);
                    return 0;
                }
                client.drain(server, stall);
                server.drain(client, stall);
                progress.finish(o.iterations());
                printLatency(out, o, r, check);
                return 0;
            }
            final BandwidthPeak peak = o.noPeak() ? null : new BandwidthPeak(o.iterations());
            final PerfLoops.Bandwidth r = PerfLoops.bandwidth(client, server, o, progress, stall, peak);
            if (o.duration() > 0)
            {
                client.drain(server, stall);
                printDuration(out, o, r.iterations(), r.nanos(), "server received " + server.checkSummary());
                return 0;
            }
            progress.finish(o.iterations());
            printBandwidth(out, o, r, "server received " + server.checkSummary());
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
            out.println(header(o));
            out.flush();
            final Progress progress = progress(err, o);
            final long stall = o.timeout().toNanos();
            if (o.test().isLatency())
            {
                final PerfLoops.Latency r = server ? PerfLoops.sendLatResponder(e, o, progress, stall)
                    : PerfLoops.sendLat(e, null, o, progress, stall);
                if (r.timed())
                {
                    printDuration(out, o, r.iterations(), r.sampleNanos(), e.checkSummary());
                    return 0;
                }
                e.drain(null, stall);
                progress.finish(o.iterations());
                printLatency(out, o, r, e.checkSummary());
            }
            else if (server)
            {
                final PerfLoops.Bandwidth r = PerfLoops.sendBwResponder(e, o, progress, stall);
                if (o.duration() > 0)
                {
                    printDuration(out, o, r.iterations(), r.nanos(), "received " + e.checkSummary());
                    return 0;
                }
                progress.finish(r.iterations());
                printBandwidth(out, o, r, "received " + e.checkSummary()
                    + "; timed from the first frame to the last, as perftest's server");
            }
            else
            {
                final BandwidthPeak peak = o.noPeak() ? null : new BandwidthPeak(o.iterations());
                final PerfLoops.Bandwidth r = PerfLoops.bandwidth(e, null, o, progress, stall, peak);
                final String sent = "sent frames of " + e.length + " bytes";
                if (o.duration() > 0)
                {
                    e.drain(null, stall);
                    printDuration(out, o, r.iterations(), r.nanos(), sent);
                    return 0;
                }
                progress.finish(o.iterations());
                printBandwidth(out, o, r, "sent " + o.iterations() + " frames of " + e.length
                    + " bytes; timed from the first post to the last send completion");
            }
            return 0;
        }
    }

    /** Progress lines of an iteration run; a duration run has no count to show progress against. */
    private static Progress progress(final PrintStream err, final PerfOptions o)
    {
        return new Progress(err, o.test().cliName(), o.iterations(), o.progress() && o.duration() == 0);
    }

    /** perftest's table header: latency (RESULT_FMT_LAT, or with -D RESULT_FMT_LAT_DUR) or bandwidth with peak. */
    private static String header(final PerfOptions o)
    {
        if (o.test().isLatency())
        {
            return o.duration() > 0 ? ResultTable.latencyDurationHeader() : ResultTable.latencyHeader();
        }
        return ResultTable.bandwidthHeader(o.reportGbits());
    }

    // ------------------------------------------------------------------------------------------ output

    /** {@code loopbackServer}: in loopback the server QP (its flow rule is shown too), else null. */
    private static void banner(final PrintStream out, final PerfOptions o, final Context context,
        final PortAttributes p, final RawEndpoint e, final RawEndpoint loopbackServer, final String connection)
    {
        final boolean latency = o.test().isLatency();
        out.println(ResultTable.LINE);
        out.println("                    " + o.test().title() + " (mlx5j Java direct path)");
        out.printf(Locale.ROOT, " Device         : %s port %d (%s, Ethernet)%n", context.deviceName(), p.port(),
            DevicesCommand.portState(p.state()));
        out.printf(Locale.ROOT, " Connection     : RawEth, %s%n", connection);
        out.printf(Locale.ROOT, " Mtu            : %d[B]     Doorbell : %s     Eth min inline : %d[B]%n",
            o.raw().mtu(), e.sq.queue().mode().name().toLowerCase(Locale.ROOT), e.sq.minInline());
        out.printf(Locale.ROOT, " %s : %d     CQ Moderation : %d     RX depth : %s%n",
            latency ? "Send depth    " : "TX depth      ", latency ? PerfOptions.LAT_SEND_DEPTH : o.txDepth(),
            e.signalInterval, e.receives() ? Integer.toString(o.rxDepth()) : "none");
        out.printf(Locale.ROOT, " Inline         : %s (inline size %d, QP max %d)%n", o.inline() ? "on" : "off",
            o.inlineSize(), e.sq.maxInlineData());
        out.println(" Frame sent     : " + (latency || !e.server
            ? describeFrame(o, e.server) + ", " + e.length + " bytes + 4 FCS"
            : "none (a raw_bw server only receives)"));
        if (e.server && !latency)
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
        final RawOptions r = o.raw();
        final long src = fromServer ? r.serverMac() : r.clientMac();
        final long dst = fromServer ? r.clientMac() : r.serverMac();
        final StringBuilder sb = new StringBuilder();
        sb.append(src < 0 ? "any" : RawOptions.macText(src)).append(" -> ").append(RawOptions.macText(dst));
        if (r.hasIp())
        {
            sb.append(", IPv4 ").append(RawOptions.ipText(fromServer ? r.serverIp() : r.clientIp()))
                .append(" -> ").append(RawOptions.ipText(fromServer ? r.clientIp() : r.serverIp()));
            if (r.hasPorts())
            {
                sb.append(r.tcp() ? ", TCP " : ", UDP ").append(fromServer ? r.serverPort() : r.clientPort())
                    .append(" -> ").append(fromServer ? r.clientPort() : r.serverPort());
            }
        }
        else
        {
            sb.append(r.ethertype() >= 0 ? String.format(Locale.ROOT, ", ethertype 0x%04x", r.ethertype())
                : ", 802.3 length " + (o.size() - RawFrame.RAWETH_ADDITION));
        }
        return sb.toString();
    }

    private static void printLatency(final PrintStream out, final PerfOptions o, final PerfLoops.Latency r,
        final String check)
    {
        final int count = r.samples().length;
        final LatencyStats s = LatencyStats.of(r.samples(), count, o.test().rttFactor());
        out.println(ResultTable.latencyRow(o.size(), o.iterations(), s));
        out.println(ResultTable.LINE);
        out.println(" " + count + " samples (round trip / 2); data check: " + check);
    }

    /**
     * perftest's bandwidth row (REPORT_FMT under RESULT_FMT / RESULT_FMT_G), BW peak column included: the peak the
     * run recorded, or 0.00 as perftest prints without one.
     */
    private static void printBandwidth(final PrintStream out, final PerfOptions o, final PerfLoops.Bandwidth r,
        final String check)
    {
        final BandwidthStats s = new BandwidthStats(o.size(), r.iterations(), r.nanos());
        final double peak = r.peak() == null ? 0 : r.peak().peak(o.size(), o.reportGbits());
        out.println(ResultTable.bandwidthRow(s, peak, o.reportGbits()));
        out.println(ResultTable.LINE);
        out.println(String.format(Locale.ROOT, " %.3f ms; data check: %s", r.nanos() * 1e-6, check));
    }

    /**
     * The row of a duration run: the iterations counted in the sample window; raw_lat: t_avg = window / iterations
     * / 2 and tps = iterations per second (print_report_lat_duration); raw_bw: perftest's bandwidth row without
     * peak (perftest keeps no per-message times in this mode).
     */
    private static void printDuration(final PrintStream out, final PerfOptions o, final long count, final long nanos,
        final String check)
    {
        if (count == 0)
        {
            throw new IllegalStateException("no iteration completed in the sample window");
        }
        if (o.test().isLatency())
        {
            out.println(ResultTable.latencyDurationRow(o.size(), count, nanos / 1e3 / o.test().rttFactor() / count,
                count / (nanos * 1e-9)));
        }
        else
        {
            out.println(ResultTable.bandwidthRow(new BandwidthStats(o.size(), count, nanos), 0, o.reportGbits()));
        }
        out.println(ResultTable.LINE);
        out.println(String.format(Locale.ROOT, " -D %d: %d iterations in the %.3f s sample window (%d s warm-up and "
            + "cool-down each); data check: %s", o.duration(), count, nanos * 1e-9, o.margin(), check));
    }
}
