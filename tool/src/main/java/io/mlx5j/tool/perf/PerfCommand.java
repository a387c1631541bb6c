// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.DeviceAttributes;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.tool.DevicesCommand;
import io.mlx5j.tool.GidText;
import io.mlx5j.tool.Mlx5jTool;
import io.mlx5j.tool.perf.report.BandwidthStats;
import io.mlx5j.tool.perf.report.LatencyStats;
import io.mlx5j.tool.perf.report.ResultTable;

import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * {@code mlx5j perf TEST}: opens the device, then runs the test on its transport: a raw test through
 * {@link RawPerfCommand}; an ib_* test here, with one endpoint (server or client, connected over perftest's exchange)
 * or two (loopback, one thread); runs {@link PerfLoops}, checks the data that moved, and prints perftest's table.
 */
public final class PerfCommand
{
    private PerfCommand()
    {
    }

    public static int run(final PerfOptions o, final PrintStream out, final PrintStream err)
    {
        try (Context context = o.device() == null ? Context.openFirst() : Context.open(o.device()))
        {
            out.println("mlx5j: device " + context.deviceName() + Mlx5jTool.platform());
            if (!context.isMlx5())
            {
                throw new IllegalStateException(context.deviceName()
                    + " is not driven by libmlx5; the Java direct path needs an mlx5 device");
            }
            final int status;
            if (o.test().isRaw())
            {
                status = RawPerfCommand.run(context, o, out, err);
            }
            else
            {
                final DeviceAttributes attr = context.queryDevice();
                final int rdAtomic = Math.max(1, Math.min(16, Math.min(attr.maxQpRdAtom(), attr.maxQpInitRdAtom())));
                try (ProtectionDomain pd = context.allocPd())
                {
                    status = o.role() == PerfOptions.Role.LOOPBACK
                        ? loopback(context, pd, o, rdAtomic, out, err)
                        : twoProcess(context, pd, o, rdAtomic, out, err);
                }
            }
            Mlx5jTool.printPortCounters(context.deviceName(), o.ibPort(), out);
            return status;
        }
    }

    static RcEndpoint endpoint(final Context context, final ProtectionDomain pd, final PerfOptions o)
    {
        return endpoint(context, pd, o, o.maxSize());
    }

    /** {@code area}: bytes the peer may target (at least the message size). */
    static RcEndpoint endpoint(final Context context, final ProtectionDomain pd, final PerfOptions o, final long area)
    {
        if (o.ib().xrc())
        {
            return new XrcEndpoint(context, pd, o.ibPort(), o.ib().gidIndex(), o.sendDepth(),
                o.test().isSend() ? o.rxDepth() : 0, o.inlineSize(), Math.max(area, o.maxSize()), o.ib().qps(),
                XrcEndpoint.side(o));
        }
        return new RcEndpoint(context, pd, o.ibPort(), o.ib().gidIndex(), o.sendDepth(),
            o.test().isSend() ? o.rxDepth() : 0, o.inlineSize(), Math.max(area, o.maxSize()), o.ib().qps());
    }

    /** Bytes of each area a two-process run registers: a perftest bw client walks one cycle buffer (a page). */
    static long area(final PerfOptions o)
    {
        return Math.max(PerftestSession.CYCLE_BUFFER, o.maxSize());
    }

    private static int loopback(final Context context, final ProtectionDomain pd, final PerfOptions o,
        final int rdAtomic, final PrintStream out, final PrintStream err)
    {
        try (RcEndpoint a = endpoint(context, pd, o); RcEndpoint b = endpoint(context, pd, o))
        {
            // two QPs of one context may share a BlueFlame register; this thread drives both, but the register
            // object must then be the shared (locked) kind
            final boolean shared = a.bfRegister() == b.bfRegister();
            a.directPath(o.mode(), shared);
            b.directPath(o.mode(), shared);
            final int mtu = pathMtu(o, a.port);
            a.connectAll(b, mtu, rdAtomic, rdAtomic, o.ib().qpTimeout());
            b.connectAll(a, mtu, rdAtomic, rdAtomic, o.ib().qpTimeout());
            a.prepare(o, true);
            b.prepare(o, true);
            banner(out, o, context, a, mtu, "loopback: both QPs in this process, one thread");
            final long stall = stallNanos(o);
            final PerfTest t = o.test();
            final int[] sizes = o.sizes();
            final PerfOptions last = o.withSize(sizes[sizes.length - 1]);
            if (t.isLatency())
            {
                out.flush();
                JitWarmup.run(context, pd, o, rdAtomic, err);   // --warmup N; the default in loopback is none
                latencyHeader(out, o);
                PerfLoops.Latency lastRun = null;
                for (final int size : sizes)
                {
                    final PerfOptions os = o.withSize(size);
                    final Progress progress = PerftestSession.progress(err, os);
                    final PerfLoops.Latency r = switch (t)
                    {
                        case WRITE_LAT -> PerfLoops.writeLat(a, b, os, progress, stall);
                        case SEND_LAT -> PerfLoops.sendLat(a, b, os, progress, stall);
                        default -> PerfLoops.oneSidedLat(a, os, progress, stall);
                    };
                    progress.finish(r.iterations());
                    latencyRow(out, os, r);
                    lastRun = r;
                }
                latencyFooter(out, o, lastRun, verifyInitiator(a, last) + "; " + verifyResponder(b, last));
            }
            else
            {
                bandwidthHeader(out, o);
                for (final int size : sizes)
                {
                    final PerfOptions os = o.withSize(size);
                    final Progress progress = PerftestSession.progress(err, os);
                    final PerfLoops.Bandwidth r = PerfLoops.bandwidth(a, b, os, progress, stall,
                        PerftestSession.peakRecorder(os));
                    progress.finish(r.iterations());
                    bandwidthRow(out, os, r);
                }
                bandwidthFooter(out, verifyInitiator(a, last) + "; " + verifyResponder(b, last));
            }
            return 0;
        }
    }

    /** Server or client: perftest's protocol and sequence, so the peer may be perftest itself. */
    private static int twoProcess(final Context context, final ProtectionDomain pd, final PerfOptions o,
        final int rdAtomic, final PrintStream out, final PrintStream err)
    {
        if (o.ib().rdmaCm())
        {
            return PerftestSession.runRdmaCm(context, pd, o, rdAtomic, out, err);
        }
        if ("DC".equals(o.ib().connection()))
        {
            return DcExchange.run(context, pd, o, rdAtomic, out, err);
        }
        // a perftest bw client walks the target in cache-line steps through one cycle buffer (a page)
        try (RcEndpoint e = endpoint(context, pd, o, area(o)))
        {
            e.directPath(o.mode(), false);
            return PerftestSession.run(context, pd, e, o, rdAtomic, out, err);
        }
    }

    // ------------------------------------------------------------------------------------------ checks

    /** What the initiator can check in its own memory after the run. */
    static String verifyInitiator(final RcEndpoint e, final PerfOptions o)
    {
        final int size = o.size();
        return switch (o.test())
        {
            // the peer's last reply carried its send pattern (and the marker in the last byte)
            case WRITE_LAT, SEND_LAT -> expect(e, false, size - 1, true, "reply", markers(o));
            // READ copied the peer's untouched receive area (recvPattern) into our send area
            case READ_LAT, READ_BW -> expect(e, true, size, false, "READ data", false);
            case ATOMIC_LAT ->
            {
                final long fetched = e.buffer.get(RcEndpoint.HOST64, e.areaSize);
                if (o.duration() > 0)
                {
                    yield "last FETCH_ADD returned " + fetched + " (a duration run has no count to check it against)";
                }
                if (fetched != o.iterations() - 1)
                {
                    throw new IllegalStateException("data check failed: the last FETCH_ADD returned " + fetched
                        + ", expected " + (o.iterations() - 1));
                }
                yield "last FETCH_ADD returned " + fetched;
            }
            case WRITE_BW, SEND_BW, ATOMIC_BW -> "sender";
            case RAW_LAT, RAW_BW -> throw new IllegalArgumentException("a raw endpoint checks every frame on arrival");
        };
    }

    /** What the responder can check in its own memory after the run. */
    static String verifyResponder(final RcEndpoint e, final PerfOptions o)
    {
        final int size = o.size();
        return switch (o.test())
        {
            case WRITE_LAT, SEND_LAT -> expect(e, false, size - 1, true, "message", markers(o));
            case WRITE_BW, SEND_BW -> expect(e, false, size, true, "message", false);
            case READ_LAT, READ_BW -> "READ source";
            case ATOMIC_LAT, ATOMIC_BW ->
            {
                final long counter = e.buffer.get(RcEndpoint.HOST64, 0);
                if (o.duration() > 0)
                {
                    yield "counter " + counter + " (a duration run has no count to check it against)";
                }
                if (counter != o.iterations())
                {
                    throw new IllegalStateException("data check failed: the counter is " + counter + " after "
                        + o.iterations() + " FETCH_ADDs of 1");
                }
                yield "counter " + counter;
            }
            case RAW_LAT, RAW_BW -> throw new IllegalArgumentException("a raw endpoint checks every frame on arrival");
        };
    }

    /** write_lat -a: the smaller sizes left their markers in the last byte of each (offsets 2^k - 1). */
    private static boolean markers(final PerfOptions o)
    {
        return o.test() == PerfTest.WRITE_LAT && o.ib().allSizes();
    }

    /**
     * Checks {@code length} bytes of an area against a pattern; returns what was checked. {@code skipMarkers}: the
     * bytes at offsets 2^k - 1 are the earlier sizes' write_lat markers, not data.
     */
    private static String expect(final RcEndpoint e, final boolean sendArea, final long length,
        final boolean sendPattern, final String what, final boolean skipMarkers)
    {
        final long base = sendArea ? e.areaSize : 0;
        int skipped = 0;
        for (long i = 0; i < length; i++)
        {
            if (skipMarkers && i > 0 && Long.bitCount(i + 1) == 1)
            {
                skipped++;
                continue;
            }
            final byte want = sendPattern ? RcEndpoint.sendPattern(i) : RcEndpoint.recvPattern(i);
            final byte got = e.buffer.get(ValueLayout.JAVA_BYTE, base + i);
            if (got != want)
            {
                throw new IllegalStateException(String.format(Locale.ROOT,
                    "data check failed: %s byte %d is 0x%02x, expected 0x%02x", what, i, got & 0xff, want & 0xff));
            }
        }
        return what + " " + length + " bytes ok" + (skipped > 0 ? " (but the " + skipped
            + " marker bytes of the smaller sizes)" : "");
    }

    // ------------------------------------------------------------------------------------------ output

    static void banner(final PrintStream out, final PerfOptions o, final Context context, final RcEndpoint e,
        final int mtu, final String connection)
    {
        final PortAttributes p = e.port;
        out.println(ResultTable.LINE);
        out.println("                    " + o.test().title() + " (mlx5j Java direct path)");
        out.printf(Locale.ROOT, " Device         : %s port %d (%s, %s)%n", context.deviceName(), p.port(),
            DevicesCommand.portState(p.state()), p.isEthernet() ? "Ethernet/RoCE" : "InfiniBand");
        out.printf(Locale.ROOT, " Connection     : %s, %s%n", e.connectionName(), connection);
        out.printf(Locale.ROOT, " Path MTU       : %d     Doorbell : %s     BlueFlame register : %s%n", 128 << mtu,
            e.sq.mode().name().toLowerCase(Locale.ROOT), e.registerModes());
        if (e.qpCount() > 1)
        {
            out.printf(Locale.ROOT, " Number of qps  : %d     posted round-robin, -n %d messages each, one CQ%n",
                e.qpCount(), o.iterations());
        }
        out.printf(Locale.ROOT, " Inline         : %s%n", o.test().canInline()
            ? (o.inline() ? "on" : "off") + " (inline size " + o.inlineSize() + ", QP max " + e.sq.maxInlineData() + ")"
            : "n/a");
        if (o.test().isLatency())
        {
            out.printf(Locale.ROOT, " Send depth     : %d     Signal every : %d%n", PerfOptions.LAT_SEND_DEPTH,
                o.signalInterval());
        }
        else
        {
            out.printf(Locale.ROOT, " TX depth       : %d     CQ moderation : %d%n", o.txDepth(), o.cqMod());
        }
        out.println(address(" local address  : ", e.local()));
        out.println(address(" remote address : ", e.shownRemote()));
        out.println(ResultTable.LINE);
    }

    private static String address(final String label, final PeerInfo a)
    {
        return String.format(Locale.ROOT, "%sLID 0x%04x QPN 0x%06x PSN 0x%06x RKey 0x%08x VAddr 0x%016x GID %s",
            label, a.lid(), a.qpn(), a.psn(), a.rkey(), a.addr(), GidText.ntop(a.gid()));
    }

    /** perftest's latency columns: per-sample statistics, or with -D RESULT_FMT_LAT_DUR. */
    static void latencyHeader(final PrintStream out, final PerfOptions o)
    {
        out.println(o.duration() > 0 ? ResultTable.latencyDurationHeader() : ResultTable.latencyHeader());
    }

    static void latencyRow(final PrintStream out, final PerfOptions os, final PerfLoops.Latency r)
    {
        if (r.timed())
        {
            // perftest print_report_lat_duration: sampling time / rtt factor / iterations, and iterations per second
            final double usec = r.iterations() == 0 ? 0 : r.sampleNanos() * 1e-3 / os.test().rttFactor()
                / r.iterations();
            out.println(ResultTable.latencyDurationRow(os.size(), r.iterations(), usec,
                r.iterations() / (r.sampleNanos() * 1e-9)));
            return;
        }
        final LatencyStats s = LatencyStats.of(r.samples(), r.samples().length, os.test().rttFactor());
        out.println(ResultTable.latencyRow(os.size(), os.iterations(), s));
    }

    /** {@code last}: the last run (its sample count is what the line reports, per size with -a). */
    static void latencyFooter(final PrintStream out, final PerfOptions o, final PerfLoops.Latency last,
        final String check)
    {
        out.println(ResultTable.LINE);
        if (last.timed())
        {
            out.println(" duration " + o.duration() + " s, sampled " + (o.duration() - 2 * o.margin())
                + " s between margins of " + o.margin() + " s; data check: " + check);
            return;
        }
        out.println(" " + last.samples().length + " samples" + (o.ib().allSizes() ? " per size" : "")
            + (o.test().rttFactor() == 2 ? " (round trip / 2)" : "") + "; data check: " + check);
    }

    static void bandwidthHeader(final PrintStream out, final PerfOptions o)
    {
        out.println(ResultTable.bandwidthHeader(o.reportGbits()));
    }

    /** Prints one row; returns it as the report a perftest server receives. */
    static PerftestWire.BwReport bandwidthRow(final PrintStream out, final PerfOptions os, final PerfLoops.Bandwidth r)
    {
        final double peak = r.peak() == null ? 0 : r.peak().peak(os.size(), os.reportGbits());
        if (r.iterations() == 0)
        {
            out.println(ResultTable.bandwidthRow(os.size(), 0, peak, 0, 0));
            return new PerftestWire.BwReport(os.size(), 0, peak, 0, 0);
        }
        final BandwidthStats s = new BandwidthStats(os.size(), r.iterations(), r.nanos());
        // with -q every QP's messages count, in #iterations too (perftest's tot_iters = -n times -q)
        out.println(ResultTable.bandwidthRow(s, peak, os.reportGbits()));
        return new PerftestWire.BwReport(os.size(), r.iterations(), peak,
            os.reportGbits() ? s.gbitPerSec() : s.mbPerSec(), s.mpps());
    }

    static void bandwidthFooter(final PrintStream out, final String check)
    {
        out.println(ResultTable.LINE);
        out.println(" data check: " + check);
    }

    /** The client's report, as a perftest server prints it (in the units the client chose). */
    static void printRemoteBandwidth(final PrintStream out, final PerfOptions o, final PerftestWire.BwReport r)
    {
        out.println(" the client's report:");
        out.println(ResultTable.bandwidthHeader(o.reportGbits()));
        out.println(ResultTable.bandwidthRow(r.size(), r.iterations(), r.bwPeak(), r.bwAvg(), r.msgRate()));
        out.println(ResultTable.LINE);
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** enum ibv_mtu of the requested MTU, or the port's active MTU. */
    static int pathMtu(final PerfOptions o, final PortAttributes port)
    {
        if (o.ib().mtu() == 0)
        {
            return port.activeMtu();
        }
        final int wanted = Integer.numberOfTrailingZeros(o.ib().mtu()) - 7; // 256 -> 1 ... 4096 -> 5
        if (wanted > port.activeMtu())
        {
            throw new IllegalArgumentException("--mtu " + o.ib().mtu() + " is above the port's active MTU "
                + port.activeMtuBytes());
        }
        return wanted;
    }

    static long stallNanos(final PerfOptions o)
    {
        return o.timeout().toNanos();
    }
}
