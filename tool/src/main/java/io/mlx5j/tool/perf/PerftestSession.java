// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.CmId;
import io.mlx5j.cm.CmListener;
import io.mlx5j.cm.CmRejectedException;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.tool.perf.report.BandwidthPeak;
import io.mlx5j.tool.perf.report.ResultTable;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;

/**
 * A two-process {@code mlx5j perf} run, step for step as perftest 4.5-0.17 runs it (src/write_lat.c, write_bw.c,
 * send_lat.c, send_bw.c, read_lat.c, read_bw.c, atomic_lat.c, atomic_bw.c, RC or XRC, not bidirectional), so
 * that either side may be the unmodified perftest program:
 * <ol>
 * <li>versions, system data, MTU ({@link PerftestWire});</li>
 * <li>the QP handshakes, one per destination ({@link RcEndpoint#destCount}: a QP, or with XRC the INI and TGT QPs
 *     of {@link XrcEndpoint}): latency tests other than send_lat exchange QP 0's destination once more before
 *     those; then every test connects its QPs (INIT, RTR, RTS) and exchanges them once more (perftest prints the
 *     remote side then), with QP 0's once more "after moving the QP to RTR" after them (the *_lat and *_bw tests but
 *     send_*) or before them (send_lat, send_bw, which then post their receives and exchange once more so that no
 *     SEND arrives before the receives are posted);</li>
 * <li>the run: in write_lat the server writes first (perftest 6.06's run_iter_lat_write), in send_lat the client
 *     sends first; READ, atomic and *_bw runs are the client's alone;</li>
 * <li>the end: write_lat has no exchange, so each side keeps its QP until the peer has ended (its exit, or the
 *     data connection's DISCONNECTED over rdma_cm; two mlx5j sides close as send_* do); send_* close (a handshake and
 *     "done"); read_lat and atomic_lat servers close at once and wait there for the client; *_bw (not send_bw)
 *     exchange a handshake and the bandwidth reports, and the server prints the client's report, as perftest's
 *     server does, then both close.</li>
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
    /** perftest's rdma_cm_client_connection: ten attempts, 100 ms apart. */
    private static final int CONNECT_ATTEMPTS = 10;
    private static final long CONNECT_RETRY_MILLIS = 100;

    private PerftestSession()
    {
    }

    /** A TCP run (perftest's default): the endpoint's QP is connected by hand with the exchanged destinations. */
    static int run(final Context context, final ProtectionDomain pd, final RcEndpoint e, final PerfOptions o,
        final int rdAtomic, final PrintStream out, final PrintStream err)
    {
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        try (ServerSocket listener = server ? listen(o.ib().tcpPort()) : null)
        {
            if (server)
            {
                out.println("mlx5j: waiting for a client (perftest or mlx5j) on TCP port " + listener.getLocalPort());
                out.flush();
            }
            // listening already: a client that connects during the warm-up waits in the backlog
            JitWarmup.run(context, pd, o, rdAtomic, err);
            try (PerftestWire w = server ? PerftestWire.accept(listener, o.timeout())
                : PerftestWire.connect(o.ib().host(), o.ib().tcpPort(), o.timeout()))
            {
                final int mtu = preamble(w, e.areaSize, o, PerfCommand.pathMtu(o, e.port));
                final int outReads = Math.min(o.ib().outReads(), rdAtomic);
                return session(context, w, e, null, o, mtu, outReads, out, err);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("perftest exchange: " + ex.getMessage(), ex);
        }
    }

    /**
     * A {@code -R} run (perftest_communication.c create_rdma_cm_connection): the exchanges go over an rdma_cm
     * control connection ({@link PerftestCmLink}) to the port {@code -p}; after versions, system data and MTU, one
     * handshake, then the data QP connects through rdma_cm to the same port (the server listens there again once
     * the control connection is accepted) with perftest's parameters (READ/atomic resources {@code out_reads} for
     * read and atomic tests, else none), one more handshake, then the test's own handshakes as over TCP but without
     * the hand-made QP connection. perftest's server starts listening for the data QP only after that first
     * handshake, so its client's request can come too early and be REJECTED (reason 8, no listener): mlx5j's client
     * then tries again, as perftest's retry loop means to (ten times, 100 ms apart); mlx5j's server listens before
     * the handshake, so a perftest client never meets an empty port. At the end the client disconnects the data QP
     * and waits for DISCONNECTED (rdma_cm_disconnect_nodes); the server disconnects without waiting.
     */
    static int runRdmaCm(final Context context, final ProtectionDomain pd, final PerfOptions o, final int rdAtomic,
        final PrintStream out, final PrintStream err)
    {
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        final InetSocketAddress any = new InetSocketAddress(o.ib().tcpPort());
        final int outReads = Math.min(o.ib().outReads(), rdAtomic);
        final boolean reads = o.test().isRead() || o.test().isAtomic();
        final ConnectOptions data = PerftestCmLink.options(reads ? outReads : 0, o.timeout());
        final RcEndpoint[] made = new RcEndpoint[1];
        CmConnection connection = null;
        CmListener dataListener = null;
        PerftestWire w = null;
        try
        {
            if (server)
            {
                try (CmListener control = CmListener.bind(any, 1))
                {
                    out.println("mlx5j: waiting for a client (perftest -R or mlx5j) on rdma_cm port " + control.port());
                    out.flush();
                    w = new PerftestWire(PerftestCmLink.accept(control, context, pd, o.timeout()), false);
                }
            }
            else
            {
                w = new PerftestWire(PerftestCmLink.connect(context, pd, o.ib().host(), o.ib().tcpPort(),
                    o.timeout()), true);
            }
            final int mtu = preamble(w, PerftestSession.CYCLE_BUFFER, o, 0);
            final PerftestWire.Dest none = new PerftestWire.Dest(0, 0, 0, 0, 0, 0, Gid.ZERO, 0);
            if (server)
            {
                dataListener = CmListener.bind(any, 1);
                w.handshake(none, false);
                connection = dataListener.awaitRequest(o.timeout()).accept(
                    id -> (made[0] = dataEndpoint(context, pd, o, id)).qp, data);
                dataListener.close();
            }
            else
            {
                w.handshake(none, false);
                connection = connectData(context, pd, o, data, made, err);
            }
            w.handshake(none, false);
            final RcEndpoint e = made[0];
            // the data QP may have been given the control QP's BlueFlame register: then its rings take the lock too
            e.directPath(o.mode(), e.bfRegister() == w.bfRegister());
            return session(context, w, e, connection, o, mtu, outReads, out, err);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("perftest exchange over rdma_cm: " + ex.getMessage(), ex);
        }
        finally
        {
            closeAll(dataListener, connection, made[0], w);
        }
    }

    /** The data QP of the client: connect, again after a REJECTED while the server is not yet listening. */
    private static CmConnection connectData(final Context context, final ProtectionDomain pd, final PerfOptions o,
        final ConnectOptions options, final RcEndpoint[] made, final PrintStream err)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return CmConnection.connect(new InetSocketAddress(o.ib().host(), o.ib().tcpPort()), options,
                    id -> (made[0] = dataEndpoint(context, pd, o, id)).qp);
            }
            catch (final CmRejectedException ex)
            {
                made[0].close();
                made[0] = null;
                if (ex.reason() != CmRejectedException.REASON_NO_LISTENER || attempt == CONNECT_ATTEMPTS)
                {
                    throw ex;
                }
                sleep(CONNECT_RETRY_MILLIS);
            }
            catch (final RuntimeException ex)
            {
                if (made[0] != null)
                {
                    made[0].close();
                    made[0] = null;
                }
                throw ex;
            }
        }
    }

    private static RcEndpoint dataEndpoint(final Context context, final ProtectionDomain pd, final PerfOptions o,
        final CmId id)
    {
        PerftestCmLink.requireDevice(context, id);
        return new RcEndpoint(context, pd, id.port(), o.ib().gidIndex(), o.sendDepth(),
            o.test().isSend() ? o.rxDepth() : 0, o.inlineSize(), Math.max(CYCLE_BUFFER, PerfCommand.area(o)));
    }

    /** Versions, system data and MTU; returns the path MTU both use (0 in: the QP's is the CM's, print the port's). */
    static int preamble(final PerftestWire w, final long area, final PerfOptions o, final int mtu)
        throws IOException
    {
        w.exchangeVersions();
        final int[] sys = w.exchangeSysData(CYCLE_BUFFER, CACHE_LINE);
        if (sys[0] > area && o.size() <= sys[0] / 2)
        {
            throw new IllegalStateException("the peer's cycle buffer (page size) is " + sys[0] + " bytes; "
                + "mlx5j's perf area is " + area + ": use -s " + sys[0] + " or more");
        }
        return w.exchangeMtu(mtu == 0 ? 5 : mtu);
    }

    /** From the first destination handshake to the end of the test; {@code cm}: the data QP's rdma_cm connection. */
    private static int session(final Context context, final PerftestWire w, final RcEndpoint e, final CmConnection cm,
        final PerfOptions o, final int mtu, final int outReads, final PrintStream out, final PrintStream err)
        throws IOException
    {
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        final PerfTest t = o.test();
        final boolean gid = e.gidIndex >= 0;
        // perftest -q: one destination handshake per QP, in QP order (write_bw.c etc.: the loop over num_of_qps
        // before ctx_connect); every later exchange carries QP 0's destination. -c XRC: a latency test's
        // destinations are its INI QPs, then its TGT QPs (perftest doubles num_of_qps), a bw test's one kind
        final int dests = e.destCount();
        final PerftestWire.Dest[] mine = new PerftestWire.Dest[dests];
        final PerftestWire.Dest[] theirs = new PerftestWire.Dest[dests];
        for (int i = 0; i < dests; i++)
        {
            mine[i] = e.dest(i, outReads);
        }
        final PerftestWire.Dest my = mine[0];
        if (t.isLatency() && t != PerfTest.SEND_LAT)
        {
            // write_lat.c, read_lat.c, atomic_lat.c: QP 0's destination once before the loop
            e.checkPeerDest(w.handshake(my, gid));
        }
        for (int i = 0; i < dests; i++)
        {
            theirs[i] = w.handshake(mine[i], gid);
            e.checkPeerDest(theirs[i]);
        }
        for (int i = 0; i < dests; i++)
        {
            // XRC: INI QP i connects to the peer's TGT QP i, whose destination comes after its INI QPs
            final PerftestWire.Dest rem = theirs[e.peerDest(i)];
            final PeerInfo peer = PeerInfo.of(rem.lid(), rem.qpn(), rem.psn(), rem.gid())
                .withBuffer(rem.rkey(), rem.vaddr(), e.areaSize);
            if (cm == null)
            {
                // our RTR takes the peer's read depth as what it may ask of us (perftest: max_dest_rd_atomic =
                // my out_reads; max_rd_atomic = the peer's)
                e.connectDest(i, peer, rem.srqn(), mtu, outReads, Math.max(1, Math.min(outReads, rem.outReads())),
                    o.ib().qpTimeout());
            }
            else
            {
                e.remote = peer;    // the CM connected the QP; the handshake brought the buffer
                e.remotes[i] = peer;
            }
        }
        e.prepare(o, w.remoteIsMlx5j());
        // perftest 4.5-0.17: the exchange after connecting is a loop over the QPs (it prints each remote QP then);
        // the one "after moving the QP to RTR" carries QP 0 only, and send_lat.c / send_bw.c have theirs before the
        // loop instead of after it
        if (t.isSend())
        {
            w.handshake(my, gid);
        }
        for (int i = 0; i < dests; i++)
        {
            w.handshake(mine[i], gid);
        }
        if (!t.isSend())
        {
            w.handshake(my, gid);
        }
        return runTests(context, w, e, cm, o, mtu, my, out, err);
    }

    /**
     * From the banner to the end of the test, once the QP(s) are connected and the destinations exchanged: the
     * exchanges of the run itself carry {@code my} (perftest's my_dest[0]). Shared by the RC and XRC run above and
     * {@link DcExchange}.
     */
    static int runTests(final Context context, final PerftestWire w, final RcEndpoint e, final CmConnection cm,
        final PerfOptions o, final int mtu, final PerftestWire.Dest my, final PrintStream out, final PrintStream err)
        throws IOException
    {
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        final PerfTest t = o.test();
        final boolean gid = e.gidIndex >= 0;
        PerfCommand.banner(out, o, context, e, mtu,
            (server ? "server, client " + w.peer() : "client of " + o.ib().host() + ":" + o.ib().tcpPort())
            + (cm != null ? ", connected through rdma_cm" : "") + ", peer " + (w.remoteIsMlx5j() ? "mlx5j"
            : "perftest " + w.remoteVersion()));
        for (final String note : o.notes())
        {
            out.println(" note: " + note);
        }
        w.readTimeout(Duration.ZERO);  // a perftest peer may run long; a dead one ends the wait with EOF

        final long stall = o.timeout().toNanos();
        final boolean check = w.remoteIsMlx5j();
        final int[] sizes = o.sizes();
        final PerfOptions last = o.withSize(sizes[sizes.length - 1]);
        switch (t)
        {
            case WRITE_LAT ->
            {
                // both sides sweep the sizes with no exchange between them: the ping-pong keeps them in step
                PerfCommand.latencyHeader(out, o);
                PerfLoops.Latency lastRun = null;
                boolean acked = true;
                for (final int size : sizes)
                {
                    final PerfOptions os = o.withSize(size);
                    final Progress progress = progress(err, os);
                    final PerfLoops.Latency r = server ? PerfLoops.writeLat(e, null, os, progress, stall)
                        : PerfLoops.writeLatResponder(e, os, progress, stall);
                    if (o.duration() > 0)
                    {
                        acked = e.settle(stall);    // judged once we know whether the peer has ended
                    }
                    else
                    {
                        e.quiesce(stall);
                    }
                    progress.finish(r.iterations());
                    PerfCommand.latencyRow(out, os, r);
                    lastRun = r;
                }
                endWriteLat(w, cm, e, my, gid, acked, o.timeout(), err);
                PerfCommand.latencyFooter(out, o, lastRun, checkOf(e, last, !server, check));
            }
            case SEND_LAT ->
            {
                PerfCommand.latencyHeader(out, o);
                PerfLoops.Latency lastRun = null;
                for (final int size : sizes)
                {
                    final PerfOptions os = o.withSize(size);
                    w.handshake(my, gid);   // our receives are posted (they stay posted): the peer may send
                    final Progress progress = progress(err, os);
                    final PerfLoops.Latency r = server ? PerfLoops.sendLatResponder(e, os, progress, stall)
                        : PerfLoops.sendLat(e, null, os, progress, stall);
                    e.quiesce(stall);
                    progress.finish(r.iterations());
                    PerfCommand.latencyRow(out, os, r);
                    lastRun = r;
                }
                w.close(my, gid);
                PerfCommand.latencyFooter(out, o, lastRun, checkOf(e, last, server, check));
            }
            case READ_LAT, ATOMIC_LAT ->
            {
                if (server)
                {
                    w.close(my, gid);   // waits in the handshake until the client has run
                    out.println(" " + (o.duration() > 0 ? "a " + o.duration() + " s run's" : o.iterations()
                        + (sizes.length > 1 ? " per size" : "")) + " iterations served; data check: "
                        + checkOf(e, last, true, check));
                    out.println(ResultTable.LINE);
                }
                else
                {
                    PerfCommand.latencyHeader(out, o);
                    PerfLoops.Latency lastRun = null;
                    for (final int size : sizes)
                    {
                        final PerfOptions os = o.withSize(size);
                        final Progress progress = progress(err, os);
                        final PerfLoops.Latency r = PerfLoops.oneSidedLat(e, os, progress, stall);
                        progress.finish(r.iterations());
                        PerfCommand.latencyRow(out, os, r);
                        lastRun = r;
                    }
                    w.close(my, gid);
                    PerfCommand.latencyFooter(out, o, lastRun, checkOf(e, last, false, check));
                }
            }
            case SEND_BW ->
            {
                if (!server)
                {
                    PerfCommand.bandwidthHeader(out, o);
                }
                long served = 0;
                for (final int size : sizes)
                {
                    final PerfOptions os = o.withSize(size);
                    w.handshake(my, gid);   // the server's receives are posted: the client may send
                    final Progress progress = progress(err, os);
                    if (server)
                    {
                        final long n = PerfLoops.sendBwResponder(e, os, progress, stall).iterations();
                        progress.finish(n);
                        served = n;
                        if (sizes.length > 1)
                        {
                            out.println(" " + n + " iterations served, " + size + " bytes each");
                        }
                    }
                    else
                    {
                        final PerfLoops.Bandwidth r = PerfLoops.bandwidth(e, null, os, progress, stall,
                            peakRecorder(os));
                        progress.finish(r.iterations());
                        PerfCommand.bandwidthRow(out, os, r);
                    }
                    if (sizes.length > 1)
                    {
                        w.handshake(my, gid);   // send_bw -a: one more after each size
                    }
                }
                w.close(my, gid);
                if (server)
                {
                    out.println((sizes.length > 1 ? "" : " " + served + " iterations served;") + " data check: "
                        + checkOf(e, last, true, check));
                    out.println(ResultTable.LINE);
                }
                else
                {
                    PerfCommand.bandwidthFooter(out, checkOf(e, last, false, check));
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
                        + checkOf(e, o.withSize((int) client.size()), true, check));
                }
                else
                {
                    PerfCommand.bandwidthHeader(out, o);
                    PerftestWire.BwReport report = null;
                    for (final int size : sizes)
                    {
                        final PerfOptions os = o.withSize(size);
                        final Progress progress = progress(err, os);
                        final PerfLoops.Bandwidth r = PerfLoops.bandwidth(e, null, os, progress, stall,
                            peakRecorder(os));
                        progress.finish(r.iterations());
                        report = PerfCommand.bandwidthRow(out, os, r);
                    }
                    // the report of the last size, as perftest's client sends after its sweep
                    w.handshake(my, gid);
                    w.exchangeBwReport(report);
                    w.close(my, gid);
                    PerfCommand.bandwidthFooter(out, checkOf(e, last, false, check));
                }
            }
        }
        if (cm != null && !server)
        {
            cm.disconnect(o.timeout());     // perftest's client waits for DISCONNECTED (rdma_cm_disconnect_nodes)
        }
        return 0;
    }

    /**
     * The end of write_lat, which has no closing exchange (perftest's write_lat.c returns after its report): our QP
     * must outlive the peer's run, since a peer still running posts more WRITEs and polls their completions, which
     * only our QP's ACKs give (a duration run ends on each side's own clock, so either may end first; perftest at
     * its alarm posts one last WRITE and leaves without its completion). An mlx5j peer closes as send_lat does; a
     * perftest one ends when it exits (TCP) or disconnects the data connection (rdma_cm: its client then waits for
     * our disconnect, its server does not). {@code acked} false: our last WRITE completed in error, which is the mirror
     * case (the peer left first, so nothing acknowledged it) only if the peer has ended, and fails the run otherwise.
     */
    private static void endWriteLat(final PerftestWire w, final CmConnection cm, final RcEndpoint e,
        final PerftestWire.Dest my, final boolean gid, final boolean acked, final Duration limit, final PrintStream err)
        throws IOException
    {
        if (w.remoteIsMlx5j())
        {
            if (!acked)
            {
                throw new IllegalStateException(e.errorText());
            }
            w.close(my, gid);
            return;
        }
        if (!(cm != null ? cm.awaitDisconnected(limit) : w.awaitPeerEnd(limit)))
        {
            throw new IllegalStateException("the perftest peer did not end its write_lat run within " + limit
                + " after ours" + (acked ? "" : "; our last WRITE completed in error: " + e.errorText()));
        }
        if (!acked)
        {
            err.println("mlx5j: the peer ended its run before acknowledging our last RDMA WRITE (perftest leaves at "
                + "its alarm and exits), which completed in error: " + e.errorText());
        }
    }

    static Progress progress(final PrintStream err, final PerfOptions os)
    {
        // a duration run has no count to show progress against; with -q the loops count every QP's messages (-n per
        // QP), so the total is n x q (it was n: "10240/20 iterations (51200%), about -140 s left")
        return new Progress(err, os.test().cliName() + (os.ib().allSizes() ? " " + os.size() + " B" : ""),
            (long) os.iterations() * os.ib().qps(), os.progress() && os.duration() == 0);
    }

    /** perftest's peak recorder for one bw run, or null when the peak is off (-N, -D, more than 20000). */
    static BandwidthPeak peakRecorder(final PerfOptions os)
    {
        // -q: every QP's messages are recorded (n per QP)
        return os.noPeak() ? null : new BandwidthPeak(os.iterations() * os.ib().qps());
    }

    /** The data check, or why there is none: a perftest peer sends whatever its buffer holds. */
    private static String checkOf(final RcEndpoint e, final PerfOptions o, final boolean responder,
        final boolean peerIsMlx5j)
    {
        if (!peerIsMlx5j)
        {
            return "not applicable (the peer is perftest, whose buffers hold no pattern)";
        }
        return responder ? PerfCommand.verifyResponder(e, o) : PerfCommand.verifyInitiator(e, o);
    }

    /** Closes what a -R run made, newest first; the first failure is thrown with the others attached. */
    private static void closeAll(final AutoCloseable... resources)
    {
        RuntimeException failure = null;
        for (final AutoCloseable r : resources)
        {
            if (r == null)
            {
                continue;
            }
            try
            {
                r.close();
            }
            catch (final Exception ex)
            {
                if (failure == null)
                {
                    failure = ex instanceof RuntimeException re ? re : new IllegalStateException(ex);
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static ServerSocket listen(final int port) throws IOException
    {
        final ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);    // perftest sets SO_REUSEADDR too
        s.bind(new InetSocketAddress(port));
        return s;
    }
}
