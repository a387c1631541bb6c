package io.mlx5j.direct.tool;

import io.mlx5j.direct.Context;
import io.mlx5j.direct.PeerInfo;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;

/**
 * A two-process {@code mlx5j perf} run, step for step as perftest 4.5-0.17 runs it (src/write_lat.c, write_bw.c,
 * send_lat.c, send_bw.c, read_lat.c, read_bw.c, atomic_lat.c, atomic_bw.c, RC, one QP, no rdma_cm, not
 * bidirectional), so that either side may be the unmodified perftest program:
 * <ol>
 * <li>versions, system data, MTU ({@link PerftestWire});</li>
 * <li>the QP handshakes: latency tests other than send_lat exchange their destination twice before connecting,
 *     the others once; then every test connects its QP (INIT, RTR, RTS) and exchanges it once more (perftest
 *     prints the remote side then), and again "after moving the QP to RTR" (the *_lat and *_bw tests but send_*);
 *     send_lat and send_bw exchange once after connecting instead, post their receives, and exchange once more so
 *     that no SEND arrives before the receives are posted;</li>
 * <li>the run: in write_lat the server writes first (perftest 6.06's run_iter_lat_write), in send_lat the client
 *     sends first; READ, atomic and *_bw runs are the client's alone;</li>
 * <li>the end: write_lat has none; send_* close (a handshake and "done"); read_lat and atomic_lat servers close at
 *     once and wait there for the client; *_bw (not send_bw) exchange a handshake and the bandwidth reports, and
 *     the server prints the client's report, as perftest's server does, then both close.</li>
 * </ol>
 * Each latency side measures itself; the bandwidth result is the client's.
 */
final class PerftestSession
{
    /**
     * perftest's cycle buffer (sysconf(_SC_PAGESIZE), the larger of both sides'): a bw client whose messages are at
     * most half of it moves its remote address in cache-line steps through that many bytes (perftest_resources.h
     * increase_rem_addr), so the area we advertise is at least this large.
     */
    static final int CYCLE_BUFFER = 4096;
    private static final int CACHE_LINE = 64;

    private PerftestSession()
    {
    }

    static int run(final Context context, final Endpoint e, final PerfOptions o, final int rdAtomic,
        final PrintStream out, final PrintStream err)
    {
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        final PerfTest t = o.test();
        try (ServerSocket listener = server ? listen(o.tcpPort()) : null)
        {
            if (server)
            {
                out.println("mlx5j: waiting for a client (perftest or mlx5j) on TCP port " + listener.getLocalPort());
                out.flush();
            }
            try (PerftestWire w = server ? PerftestWire.accept(listener, o.timeout())
                : PerftestWire.connect(o.host(), o.tcpPort(), o.timeout()))
            {
                w.exchangeVersions();
                final int[] sys = w.exchangeSysData(CYCLE_BUFFER, CACHE_LINE);
                if (sys[0] > e.areaSize && o.size() <= sys[0] / 2)
                {
                    throw new IllegalStateException("the peer's cycle buffer (page size) is " + sys[0] + " bytes; "
                        + "mlx5j's perf area is " + e.areaSize + ": use -s " + sys[0] + " or more");
                }
                final int mtu = w.exchangeMtu(PerfCommand.pathMtu(o, e.port));
                final boolean gid = e.gidIndex >= 0;
                final int outReads = Math.min(o.outReads(), rdAtomic);
                final PerftestWire.Dest my = new PerftestWire.Dest(e.port.lid(), outReads, e.qp.qpn(), e.psn,
                    e.mr.rkey(), e.recvArea, e.gid, 0);

                PerftestWire.Dest rem = w.handshake(my, gid);
                if (rem.srqn() != 0)
                {
                    throw new IllegalStateException("the peer sent SRQ number 0x" + Integer.toHexString(rem.srqn())
                        + ": it runs XRC or DC (perftest -c XRC/DC), which mlx5j perf does not; "
                        + "run it with -c RC");
                }
                if (t.isLatency() && t != PerfTest.SEND_LAT)
                {
                    rem = w.handshake(my, gid);
                }
                // our RTR takes the peer's read depth as what it may ask of us (perftest: max_dest_rd_atomic =
                // my out_reads; max_rd_atomic = the peer's)
                e.connect(PeerInfo.of(rem.lid(), rem.qpn(), rem.psn(), rem.gid())
                    .withBuffer(rem.rkey(), rem.vaddr(), e.areaSize), mtu, outReads,
                    Math.max(1, Math.min(outReads, rem.outReads())));
                // buffers, patterns and receives before the handshakes that release the peer: prepared after them,
                // the patterns could overwrite the peer's first WRITE (write_lat's responder then never saw message
                // 1 and hung until its stall timeout; seen once in a CI run of Mlx5jToolTest)
                PerfCommand.prepare(e, o, w.remoteIsMlx5j());
                w.handshake(my, gid);
                w.handshake(my, gid);
                if (t.isSend())
                {
                    w.handshake(my, gid);   // the receives are posted (prepare): the peer may send
                }
                PerfCommand.banner(out, o, context, e, mtu, (server ? "server, client " + w.peer()
                    : "client of " + o.host() + ":" + o.tcpPort()) + ", peer " + (w.remoteIsMlx5j() ? "mlx5j"
                    : "perftest " + w.remoteVersion()));
                for (final String note : o.notes())
                {
                    out.println(" note: " + note);
                }
                w.readTimeout(Duration.ZERO);  // a perftest peer may run long; a dead one ends the wait with EOF

                final Progress progress = new Progress(err, t.cliName(), o.iterations(), o.progress());
                final long stall = o.timeout().toNanos();
                final boolean check = w.remoteIsMlx5j();
                switch (t)
                {
                    case WRITE_LAT ->
                    {
                        final long[] samples = server ? PerfLoops.writeLat(e, null, o, progress, stall)
                            : PerfLoops.writeLatResponder(e, o, progress, stall);
                        e.quiesce(stall);   // the peer waits for our last WRITE; write_lat has no closing exchange
                        progress.finish(o.iterations());
                        PerfCommand.printLatency(out, o, samples, samples.length, checkOf(e, o, !server, check));
                    }
                    case SEND_LAT ->
                    {
                        final long[] samples = server ? PerfLoops.sendLatResponder(e, o, progress, stall)
                            : PerfLoops.sendLat(e, null, o, progress, stall);
                        e.quiesce(stall);
                        progress.finish(o.iterations());
                        w.close(my, gid);
                        PerfCommand.printLatency(out, o, samples, samples.length, checkOf(e, o, server, check));
                    }
                    case READ_LAT, ATOMIC_LAT ->
                    {
                        if (server)
                        {
                            w.close(my, gid);   // waits in the handshake until the client has run
                            out.println(" " + o.iterations() + " iterations served; data check: "
                                + checkOf(e, o, true, check));
                            out.println(ResultTable.LINE);
                        }
                        else
                        {
                            final long[] samples = PerfLoops.oneSidedLat(e, t == PerfTest.ATOMIC_LAT, o, progress,
                                stall);
                            progress.finish(o.iterations());
                            w.close(my, gid);
                            PerfCommand.printLatency(out, o, samples, samples.length, checkOf(e, o, false, check));
                        }
                    }
                    case SEND_BW ->
                    {
                        if (server)
                        {
                            PerfLoops.sendBwResponder(e, o, progress, stall);
                            progress.finish(o.iterations());
                            w.close(my, gid);
                            out.println(" " + o.iterations() + " iterations served; data check: "
                                + checkOf(e, o, true, check));
                            out.println(ResultTable.LINE);
                        }
                        else
                        {
                            final long nanos = PerfLoops.bandwidth(e, null, o, 1, progress, stall);
                            progress.finish(o.iterations());
                            w.close(my, gid);
                            PerfCommand.printBandwidth(out, o, nanos, checkOf(e, o, false, check));
                        }
                    }
                    case WRITE_BW, READ_BW, ATOMIC_BW ->
                    {
                        if (server)
                        {
                            w.handshake(my, gid);
                            final PerftestWire.BwReport client = w.exchangeBwReport(
                                new PerftestWire.BwReport(o.size(), 0, 0, 0, 0));
                            w.close(my, gid);
                            PerfCommand.printRemoteBandwidth(out, o, client);
                            out.println(" " + client.iterations() + " iterations served; data check: "
                                + checkOf(e, o, true, check));
                        }
                        else
                        {
                            final long nanos = PerfLoops.bandwidth(e, null, o, 1, progress, stall);
                            progress.finish(o.iterations());
                            final BandwidthStats s = new BandwidthStats(o.size(), o.iterations(), nanos);
                            w.handshake(my, gid);
                            final double bw = o.reportGbits() ? s.gbitPerSec() : s.mbPerSec();
                            w.exchangeBwReport(new PerftestWire.BwReport(o.size(), o.iterations(), 0, bw, s.mpps()));
                            w.close(my, gid);
                            PerfCommand.printBandwidth(out, o, nanos, checkOf(e, o, false, check));
                        }
                    }
                }
                return 0;
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("perftest exchange: " + ex.getMessage(), ex);
        }
    }

    /** The data check, or why there is none: a perftest peer sends whatever its buffer holds. */
    private static String checkOf(final Endpoint e, final PerfOptions o, final boolean responder,
        final boolean peerIsMlx5j)
    {
        if (!peerIsMlx5j)
        {
            return "not applicable (the peer is perftest, whose buffers hold no pattern)";
        }
        return responder ? PerfCommand.verifyResponder(e, o) : PerfCommand.verifyInitiator(e, o);
    }

    private static ServerSocket listen(final int port) throws IOException
    {
        final ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);    // perftest sets SO_REUSEADDR too
        s.bind(new InetSocketAddress(port));
        return s;
    }
}
