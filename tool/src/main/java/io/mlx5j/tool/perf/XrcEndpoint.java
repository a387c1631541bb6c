// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.verbs.XrcDomain;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The XRC form of {@link RcEndpoint} (perftest's {@code -c XRC}, perftest 4.5-0.17 perftest_resources.c): the QPs the
 * RC part posts on are XRC INI QPs (XRC_SEND, no receive queue); this part adds an XRC domain, one XRC SRQ on the one
 * CQ (perftest's ctx_xrc_srq_create: every side makes one, {@code max_wr} = rx depth), and as many XRC TGT QPs
 * (XRC_RECV) as INI QPs. Every WQE names the peer's SRQ ({@code SendQueue.xrcSrqn}); every RDMA WRITE, READ and
 * atomic lands in our buffer through a TGT QP, whose memory checks are the SRQ's PD's; SENDs complete receives of the
 * SRQ, which are posted again as they complete.
 * <p>
 * perftest's destinations (ctx_xrc_qp_create, ctx_connect, ctx_set_send_wqes): a latency test ({@code num_of_qps}
 * doubled) sends its N INI QPs, then its N TGT QPs; INI QP i connects to the peer's destination N + i (its TGT QP i)
 * and sends to that destination's SRQ, address and rkey; TGT QP i connects to the peer's destination i (its INI QP
 * i). A bw test is one-way: its client sends N INI QPs, its server N TGT QPs, and destination i pairs with the peer's
 * destination i. This endpoint always makes both kinds (a loopback run and the JIT warm-up connect both ways); the
 * side it plays ({@link Side}) chooses what it sends and connects, and the rest stays in RESET. Every destination
 * carries the SRQ number and our receive area (the peer writes there through a TGT QP).
 * <p>
 * The domain is private ({@code ibv_open_xrcd} without a file): perftest opens {@code /tmp/xrc_domain_server} or
 * {@code _client} so that its processes of one role could share it, which nothing here needs.
 * <p>
 * Thread model as {@link RcEndpoint}: built and connected on one thread, then driven by one thread.
 */
final class XrcEndpoint extends RcEndpoint
{
    /** Which QPs this side sends in perftest's exchange and connects. */
    enum Side
    {
        /** A latency test, a loopback run: the INI QPs, then the TGT QPs. */
        BOTH,
        /** The client of a bw test: the INI QPs. */
        INITIATOR,
        /** The server of a bw test: the TGT QPs. */
        TARGET
    }

    private final Side side;
    private final XrcDomain xrcd;
    private final SharedReceiveQueue srq;
    private final QueuePair[] tgts;
    private final int[] tgtPsns;
    /** The SRQ number each INI QP's WQEs name (the peer's), 0 until connected. */
    private final int[] remoteSrqns;
    /** The peer of each TGT QP (its INI QP), once connected. */
    private final PeerInfo[] tgtRemotes;
    private SrqRecvQueue srqRecv;

    /**
     * @param recvDepth the XRC SRQ's receives (the send tests' rx depth; at least 1 is asked for)
     * @param qpCount   INI QPs, and as many TGT QPs (perftest's -q)
     * @throws io.mlx5j.verbs.VerbsException if the device has no XRC (EOPNOTSUPP) or refuses an object
     */
    XrcEndpoint(final Context context, final ProtectionDomain pd, final int ibPort, final int gidIndex,
        final int sendDepth, final int recvDepth, final int inlineSize, final long areaSize, final int qpCount,
        final Side side)
    {
        super(context, pd, ibPort, gidIndex, sendDepth, recvDepth, inlineSize, areaSize, qpCount, QpType.XRC_SEND);
        this.side = side;
        this.tgts = new QueuePair[qpCount];
        this.tgtPsns = new int[qpCount];
        this.remoteSrqns = new int[qpCount];
        this.tgtRemotes = new PeerInfo[qpCount];
        XrcDomain domain = null;
        SharedReceiveQueue madeSrq = null;
        try
        {
            domain = context.openXrcDomain();
            madeSrq = pd.createXrcSrq(domain, sendCqObject, Math.max(1, recvDepth), 1);
            for (int i = 0; i < qpCount; i++)
            {
                tgts[i] = domain.createTgtQp();
                tgtPsns[i] = ThreadLocalRandom.current().nextInt(1 << 24);
            }
        }
        catch (final RuntimeException ex)
        {
            closeXrc(tgts, madeSrq);
            super.close();
            if (domain != null)
            {
                domain.close();
            }
            throw ex;
        }
        this.xrcd = domain;
        this.srq = madeSrq;
    }

    /** This side's part for a run of {@code o}: both kinds but for a bw test between two processes. */
    static Side side(final PerfOptions o)
    {
        if (o.test().isLatency() || o.role() == PerfOptions.Role.LOOPBACK)
        {
            return Side.BOTH;
        }
        return o.role() == PerfOptions.Role.CLIENT ? Side.INITIATOR : Side.TARGET;
    }

    /** The XRC SRQ's number, which every destination carries. */
    int srqn()
    {
        return srq.srqNum();
    }

    @Override
    RcEndpoint directPath(final DoorbellMode mode, final boolean sharedRegister)
    {
        super.directPath(mode, sharedRegister);
        srqRecv = SrqRecvQueue.of(srq);
        cq.attach(srqRecv);
        for (int i = 0; i < sqs.length; i++)
        {
            if (remoteSrqns[i] != 0)
            {
                sqs[i].xrcSrqn(remoteSrqns[i]);
            }
        }
        return this;
    }

    // -------------------------------------------------------------------- perftest's destinations

    @Override
    int destCount()
    {
        return side == Side.BOTH ? 2 * qps.length : qps.length;
    }

    /** True when our destination {@code i} is a TGT QP (then TGT QP {@link #tgtIndex}). */
    private boolean isTgt(final int i)
    {
        return side == Side.TARGET || side == Side.BOTH && i >= qps.length;
    }

    private int tgtIndex(final int i)
    {
        return side == Side.BOTH ? i - qps.length : i;
    }

    @Override
    PerftestWire.Dest dest(final int i, final int outReads)
    {
        final boolean tgt = isTgt(i);
        final int qpn = tgt ? tgts[tgtIndex(i)].qpn() : qps[i].qpn();
        final int qpPsn = tgt ? tgtPsns[tgtIndex(i)] : psns[i];
        return new PerftestWire.Dest(port.lid(), outReads, qpn, qpPsn, mr.rkey(), recvArea, gid, srqn(), gidIndex);
    }

    /** perftest's xrc_offset: in a latency test INI i pairs with the peer's N + i, TGT i with the peer's i. */
    @Override
    int peerDest(final int i)
    {
        if (side != Side.BOTH)
        {
            return i;
        }
        final int n = qps.length;
        return i < n ? n + i : i - n;
    }

    /** A perftest peer runs XRC if its destinations carry an SRQ number (perftest sends 0 for RC and UC). */
    @Override
    void checkPeerDest(final PerftestWire.Dest d)
    {
        if (d.srqn() == 0)
        {
            throw new IllegalStateException("the peer sent no SRQ number: it does not run XRC (perftest -c XRC); "
                + "give both sides the same -c");
        }
    }

    /**
     * An INI QP: RESET to RTS towards the peer's TGT QP, its WQEs naming {@code remoteSrqn}. A TGT QP: RESET to RTS
     * towards the peer's INI QP ({@code destRdAtomic}: what the peer may have outstanding here; RTS takes the ACK
     * timeout only: a TGT QP never sends a request).
     */
    @Override
    void connectDest(final int i, final PeerInfo remote, final int remoteSrqn, final int pathMtu,
        final int destRdAtomic, final int rdAtomic, final int qpTimeout)
    {
        if (!isTgt(i))
        {
            connectIni(i, remote, remoteSrqn, pathMtu, destRdAtomic, rdAtomic, qpTimeout);
            return;
        }
        final int t = tgtIndex(i);
        final QueuePair q = tgts[t];
        q.toInit(InitAttributes.connected(port.port(), Access.ALL_REMOTE));
        q.toRtr(new RtrAttributes(pathMtu, remote.qpn(), remote.psn(), destRdAtomic, 12, pathTo(remote)));
        q.toRts(new RtsAttributes(tgtPsns[t], qpTimeout, 7, 7, 0));
        tgtRemotes[t] = remote;
    }

    private void connectIni(final int i, final PeerInfo remote, final int remoteSrqn, final int pathMtu,
        final int destRdAtomic, final int rdAtomic, final int qpTimeout)
    {
        if (remoteSrqn == 0)
        {
            throw new IllegalArgumentException("XRC INI QP " + i + ": the peer's SRQ number is 0");
        }
        connect(i, remote, pathMtu, destRdAtomic, rdAtomic, qpTimeout);
        remoteSrqns[i] = remoteSrqn;
        if (sqs != null)
        {
            sqs[i].xrcSrqn(remoteSrqn);
        }
    }

    /** Loopback and the JIT warm-up: INI i to the peer's TGT i and its SRQ, TGT i to the peer's INI i. */
    @Override
    void connectAll(final RcEndpoint peer, final int pathMtu, final int destRdAtomic, final int rdAtomic,
        final int qpTimeout)
    {
        final XrcEndpoint p = (XrcEndpoint) peer;
        if (side != Side.BOTH || p.side != Side.BOTH)
        {
            throw new IllegalStateException("an XRC loopback connects both ways: both endpoints need Side.BOTH");
        }
        final int n = qps.length;
        for (int i = 0; i < n; i++)
        {
            connectIni(i, p.tgtLocal(i), p.srqn(), pathMtu, destRdAtomic, rdAtomic, qpTimeout);
            connectDest(n + i, p.local(i), 0, pathMtu, destRdAtomic, rdAtomic, qpTimeout);
        }
    }

    /** What a peer's INI QP connects to: our TGT QP {@code i} and our receive area. */
    private PeerInfo tgtLocal(final int i)
    {
        return PeerInfo.of(port.lid(), tgts[i].qpn(), tgtPsns[i], gid).withBuffer(mr.rkey(), recvArea, areaSize);
    }

    @Override
    PeerInfo local()
    {
        return side == Side.TARGET ? tgtLocal(0) : super.local();
    }

    @Override
    PeerInfo shownRemote()
    {
        return side == Side.TARGET ? tgtRemotes[0] : remote;
    }

    @Override
    String connectionName()
    {
        return switch (side)
        {
            case BOTH -> String.format(Locale.ROOT, "XRC, SRQ 0x%06x, the peer's 0x%06x, %d INI and %d TGT QP(s)",
                srqn(), remoteSrqns[0], qps.length, tgts.length);
            case INITIATOR -> String.format(Locale.ROOT, "XRC, SRQ 0x%06x, the peer's 0x%06x, %d INI QP(s)", srqn(),
                remoteSrqns[0], qps.length);
            case TARGET -> String.format(Locale.ROOT, "XRC, SRQ 0x%06x, %d TGT QP(s)", srqn(), tgts.length);
        };
    }

    // -------------------------------------------------------------------- receives: the XRC SRQ's

    /** {@code n} receives of the whole receive area on the XRC SRQ (the one queue every TGT QP receives into). */
    @Override
    void postReceives(final int n)
    {
        recvLength = (int) Math.min(Integer.MAX_VALUE, areaSize);
        for (int i = 0; i < n; i++)
        {
            if (!srqRecv.post(i, recvArea, lkey, recvLength))
            {
                throw new IllegalStateException("the XRC SRQ holds fewer than " + n + " WQEs");
            }
        }
        srqRecv.ring();
    }

    /** A receive of the XRC SRQ completed (naming the TGT QP): one more in its place. */
    @Override
    void repostReceive(final int qpn)
    {
        if (!srqRecv.post(received, recvArea, lkey, recvLength))
        {
            throw new IllegalStateException("XRC SRQ full after a receive completed on TGT QP 0x"
                + Integer.toHexString(qpn));
        }
        srqRecv.ring();
    }

    /** The TGT QPs and the SRQ, then the INI QPs, CQ and memory, then the domain (dependents first). */
    @Override
    public void close()
    {
        closeXrc(tgts, srq);
        super.close();
        xrcd.close();
    }

    private static void closeXrc(final QueuePair[] tgts, final SharedReceiveQueue srq)
    {
        if (tgts != null)
        {
            for (final QueuePair q : tgts)
            {
                if (q != null)
                {
                    q.close();
                }
            }
        }
        if (srq != null)
        {
            srq.close();
        }
    }
}
