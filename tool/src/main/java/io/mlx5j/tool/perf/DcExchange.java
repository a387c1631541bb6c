// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.tool.UsageException;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.ProtectionDomain;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * A two-process {@code mlx5j perf -c DC} run over TCP, exchange for exchange as perftest 4.5-0.17 runs {@code -c DC}
 * (perftest_resources.c create_qp / ctx_modify_dc_qp_to_* / ctx_connect, perftest_communication.c
 * set_up_connection, and each test's main), so that either side may be perftest:
 * <ul>
 * <li>who holds what: in a bw test the server is the target (a DCT on an SRQ) and the client the initiator (a DCI);
 *     a latency test doubles perftest's QP count, each side holding a DCI (its destination first) and a DCT (second);
 *     </li>
 * <li>the destinations: a DCT side's carry its SRQ number as srqn (set_up_connection; an initiator-only side sends
 *     0), and a DCT's QPN is 0 until RTR, so perftest runs set_up_connection again after connecting and only the
 *     exchanges after that carry the DCT number: the initiator takes it, the peer's address and buffer from the
 *     per-QP exchange after connecting (ctx_set_send_reg_wqes: r_dctn = the peer's QP {@code n + i} in a latency
 *     test, its QP {@code i} in a bw test);</li>
 * <li>the order: the latency tests but send_lat exchange destination 0 once, then each destination; after connecting,
 *     the send tests exchange destination 0 and then each destination, the others each destination and then
 *     destination 0; from there the run is the RC one ({@link PerftestSession#runTests}), every exchange carrying
 *     destination 0.</li>
 * </ul>
 * Every WQE of a DCI carries the DC key {@link DcEndpoint#DC_KEY}, perftest's fixed one. Not here: {@code -R}
 * (perftest: "DC does not support RDMA_CM"), {@code -q} above 1, {@code -b} (mlx5j perf runs no bidirectional test),
 * {@code --loopback}.
 */
final class DcExchange
{
    /** perftest's DEF_INLINE_DC: the inline default of write_lat and send_lat over DC. */
    static final int DEFAULT_INLINE = 150;

    private DcExchange()
    {
    }

    /** The parse's checks of {@code -c DC}: what perftest refuses, and what mlx5j does not run over DC. */
    static void check(final PerfTest test, final PerfOptions.Role role, final boolean rdmaCm, final int qps)
    {
        if (rdmaCm)
        {
            throw new UsageException("-c DC: not with -R (perftest: DC does not support RDMA_CM)");
        }
        if (qps > 1)
        {
            throw new UsageException("-c DC -q " + qps + ": mlx5j perf runs one DCI / DCT per side");
        }
        if (role == PerfOptions.Role.LOOPBACK)
        {
            throw new UsageException("-c DC: two processes only (a server and a client), not --loopback");
        }
        if (test.isRaw())
        {
            throw new UsageException("-c DC: not for " + test.cliName());
        }
    }

    /** The server or client side: waits for / connects to the peer, perftest or mlx5j, and runs the test. */
    static int run(final Context context, final ProtectionDomain pd, final PerfOptions o, final int rdAtomic,
        final PrintStream out, final PrintStream err)
    {
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        try (DcEndpoint e = new DcEndpoint(context, pd, o.ibPort(), o.ib().gidIndex(), o.sendDepth(),
            o.test().isSend() ? o.rxDepth() : 0, o.inlineSize(), PerfCommand.area(o));
            ServerSocket listener = server ? listen(o.ib().tcpPort()) : null)
        {
            e.directPath(o.mode(), false);
            if (server)
            {
                out.println("mlx5j: waiting for a client (perftest -c DC or mlx5j) on TCP port "
                    + listener.getLocalPort());
                out.flush();
            }
            JitWarmup.run(context, pd, o, rdAtomic, err);
            try (PerftestWire w = server ? PerftestWire.accept(listener, o.timeout())
                : PerftestWire.connect(o.ib().host(), o.ib().tcpPort(), o.timeout()))
            {
                final int mtu = PerftestSession.preamble(w, e.areaSize, o, PerfCommand.pathMtu(o, e.port));
                final int outReads = Math.min(o.ib().outReads(), rdAtomic);
                final PerftestWire.Dest my = connect(w, e, o, mtu, outReads);
                return PerftestSession.runTests(context, w, e, null, o, mtu, my, out, err);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("perftest exchange: " + ex.getMessage(), ex);
        }
    }

    /**
     * The destination exchanges and the QPs' transitions up to the run, perftest's order; returns destination 0,
     * which the run's exchanges carry.
     */
    static PerftestWire.Dest connect(final PerftestWire w, final DcEndpoint e, final PerfOptions o, final int mtu,
        final int outReads) throws IOException
    {
        final PerfTest t = o.test();
        final boolean server = o.role() == PerfOptions.Role.SERVER;
        final boolean lat = t.isLatency();
        final boolean gid = e.gidIndex >= 0;
        // latency: [DCI, DCT] on each side; bw: the server's DCT, the client's DCI
        final int n = lat ? 2 : 1;
        final boolean target = lat || server;
        final boolean initiator = lat || !server;
        // the index of the peer's DCT among its destinations (ctx_set_send_reg_wqes: xrc_offset + i)
        final int peerDct = lat ? 1 : 0;
        final int srqn = target ? e.srqn() : 0;
        e.showDct = !lat && server;
        PerftestWire.Dest[] mine = destinations(e, lat, server, outReads, srqn);
        final PerftestWire.Dest[] theirs = new PerftestWire.Dest[n];
        if (lat && t != PerfTest.SEND_LAT)
        {
            w.handshake(mine[0], gid);
        }
        for (int i = 0; i < n; i++)
        {
            theirs[i] = w.handshake(mine[i], gid);
        }
        if (initiator && theirs[peerDct].srqn() == 0)
        {
            throw new IllegalStateException("the peer's destination carries no SRQ number: it does not run DC "
                + "(perftest -c DC); run both sides with the same -c");
        }
        final PerftestWire.Dest first = theirs[peerDct];
        final AddressVector path = e.pathTo(first.lid(), first.gid());
        e.activate(mtu, path, o.ib().qpTimeout(), Math.max(1, Math.min(outReads, first.outReads())));
        e.prepare(o, w.remoteIsMlx5j());
        // set_up_connection again: the DCT has its number now
        mine = destinations(e, lat, server, outReads, srqn);
        if (t.isSend())
        {
            w.handshake(mine[0], gid);
        }
        for (int i = 0; i < n; i++)
        {
            theirs[i] = w.handshake(mine[i], gid);
        }
        if (!t.isSend())
        {
            w.handshake(mine[0], gid);
        }
        if (initiator)
        {
            final PerftestWire.Dest d = theirs[peerDct];
            if (d.qpn() == 0)
            {
                throw new IllegalStateException("the peer's DCT number is 0 after connecting: not perftest -c DC's "
                    + "exchange");
            }
            e.target(PeerInfo.of(d.lid(), d.qpn(), d.psn(), d.gid()).withBuffer(d.rkey(), d.vaddr(), e.areaSize),
                e.pathTo(d.lid(), d.gid()));
        }
        else
        {
            // a bw server only answers: the peer's DCI, for the banner (its WQEs name our DCT, not we its QP)
            final PerftestWire.Dest d = theirs[0];
            e.remote = PeerInfo.of(d.lid(), d.qpn(), d.psn(), d.gid()).withBuffer(d.rkey(), d.vaddr(), e.areaSize);
        }
        return mine[0];
    }

    /** This side's destinations in perftest's order: a DCI's carries its QPN, a DCT's its number (0 before RTR). */
    private static PerftestWire.Dest[] destinations(final DcEndpoint e, final boolean lat, final boolean server,
        final int outReads, final int srqn)
    {
        final PerftestWire.Dest dci = dest(e, e.qp.qpn(), outReads, srqn);
        final PerftestWire.Dest dct = dest(e, e.dct.qpn(), outReads, srqn);
        return lat ? new PerftestWire.Dest[] {dci, dct} : new PerftestWire.Dest[] {server ? dct : dci};
    }

    private static PerftestWire.Dest dest(final DcEndpoint e, final int qpn, final int outReads, final int srqn)
    {
        // every destination advertises the receive area: the peer writes/reads there through our DCT
        return new PerftestWire.Dest(e.port.lid(), outReads, qpn, e.psn, e.mr.rkey(), e.recvArea, e.gid, srqn,
            e.gidIndex);
    }

    private static ServerSocket listen(final int port) throws IOException
    {
        final ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);    // perftest sets SO_REUSEADDR too
        s.bind(new InetSocketAddress(port));
        return s;
    }
}
