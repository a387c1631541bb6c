// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.direct.Completion;
import io.mlx5j.verbs.Context;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;
import io.mlx5j.direct.RegisterMode;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The RC part of an {@link Endpoint} (perftest's ib_* tests): one CQ for both queues, the Java send queue, and the
 * buffer split in two areas:
 * <pre>
 *   buffer:  [ recv area: peers write/send/read here | send area: the source of our writes/sends/read targets ]
 *            0                                   areaSize                                           2*areaSize
 * </pre>
 * Two areas because write_lat spins on the last byte of the area the peer writes: were it also our source, the
 * marker we set before posting would satisfy our own spin.
 * <p>
 * With perftest's {@code -q N} the endpoint holds N QPs on the one CQ, all over the same buffer (each QP writes from
 * the send area to its peer QP's advertised address, and advertises the receive area): message {@code k} goes on QP
 * {@code k mod N}, so the posts go round-robin as in perftest's run_iter_bw. {@link #qp}, {@link #sq} and the
 * single-QP methods are QP 0's.
 * <p>
 * {@link XrcEndpoint} is the XRC form (perftest's {@code -c XRC}): its QPs here are XRC INI QPs, and it adds the
 * receiving side (an XRC domain, TGT QPs and an XRC SRQ) and perftest's pairing of destinations.
 */
sealed class RcEndpoint extends Endpoint permits XrcEndpoint, DcEndpoint
{
    static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /** 8-byte atomics are host-endian on ConnectX-4+ under Linux (mlx5 core sets atomic_req_8B_endianness_mode). */
    static final ValueLayout.OfLong HOST64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    /** What {@link #post} sends: the test's operation. */
    private static final int WRITE = 0;
    private static final int READ = 1;
    private static final int FETCH_ADD = 2;
    private static final int SEND = 3;

    final PortAttributes port;
    final Gid gid;
    final int gidIndex;
    final long areaSize;
    final long recvArea;
    final long sendArea;
    final int psn;
    SendQueue sq;
    CqPoller cq;
    final Completion wc = new Completion();
    /** The peer, once connected. */
    PeerInfo remote;
    /** Length each receive WQE offers (the whole receive area). */
    int recvLength;
    private final boolean receives;
    /** The run {@link #begin} readied: operation, message size, the peer's area. */
    private int operation;
    private int size;
    private long remoteAddr;
    private int remoteKey;

    /** All the QPs, QP 0 first ({@link #qp}); the queues and peers index alike. */
    final QueuePair[] qps;
    final int[] psns;
    SendQueue[] sqs;
    RecvQueue[] rqs;
    final PeerInfo[] remotes;
    private final long[] remoteAddrs;
    private final int[] remoteKeys;
    /** QP numbers in ascending order and each one's index: which queue a completion belongs to. */
    private final int[] sortedQpns;
    private final int[] sortedIndex;
    /** Per QP, the lowest message number (wr_id) not yet known complete on it; wr_ids on QP q are q mod N. */
    private final long[] pendingFrom;

    /**
     * @param sendDepth    send WQEs the QP holds
     * @param recvDepth    receive WQEs the QP holds (0: this side receives nothing; 1 is still asked for)
     * @param inlineSize   max inline data requested for the QP
     * @param areaSize     bytes per area (at least the message size, 8-byte aligned)
     * @param gidIndex     -1 = no GID unless the port is Ethernet (then 0)
     */
    RcEndpoint(final Context context, final ProtectionDomain pd, final int ibPort, final int gidIndex,
        final int sendDepth, final int recvDepth, final int inlineSize, final long areaSize)
    {
        this(context, pd, ibPort, gidIndex, sendDepth, recvDepth, inlineSize, areaSize, 1);
    }

    /** @param qpCount QPs on the one CQ (perftest's -q) */
    RcEndpoint(final Context context, final ProtectionDomain pd, final int ibPort, final int gidIndex,
        final int sendDepth, final int recvDepth, final int inlineSize, final long areaSize, final int qpCount)
    {
        this(context, pd, ibPort, gidIndex, sendDepth, recvDepth, inlineSize, areaSize, qpCount, QpType.RC);
    }

    /** @param type RC, XRC_SEND for {@link XrcEndpoint} or DCI for {@link DcEndpoint} (QPs without a receive queue) */
    RcEndpoint(final Context context, final ProtectionDomain pd, final int ibPort, final int gidIndex,
        final int sendDepth, final int recvDepth, final int inlineSize, final long areaSize, final int qpCount,
        final QpType type)
    {
        // the port and GID are queried before anything is created (a failure then leaves nothing to close)
        this(context, pd, Address.of(context, ibPort, gidIndex), sendDepth, recvDepth, inlineSize,
            align(Math.max(areaSize, 64), 64), qpCount, type);
    }

    private RcEndpoint(final Context context, final ProtectionDomain pd, final Address address, final int sendDepth,
        final int recvDepth, final int inlineSize, final long areaSize, final int qpCount, final QpType type)
    {
        super(context, pd, type, false, sendDepth, recvDepth, inlineSize, 2 * areaSize, Access.ALL_REMOTE,
            qpCount);
        this.port = address.port();
        this.gidIndex = address.gidIndex();
        this.gid = address.gid();
        this.areaSize = areaSize;
        this.recvArea = buffer.address();
        this.sendArea = buffer.address() + areaSize;
        this.psn = ThreadLocalRandom.current().nextInt(1 << 24);
        this.receives = recvDepth > 0;
        this.qps = new QueuePair[qpCount];
        this.psns = new int[qpCount];
        qps[0] = qp;
        psns[0] = psn;
        try
        {
            for (int i = 1; i < qpCount; i++)
            {
                final boolean sendOnly = type == QpType.XRC_SEND;
                qps[i] = pd.createQp(QpConfig.builder(type, sendCqObject).maxSendWr(sendDepth)
                    .maxRecvWr(sendOnly ? 0 : Math.max(1, recvDepth)).maxSendSge(1).maxRecvSge(sendOnly ? 0 : 1)
                    .maxInlineData(inlineSize).build());
                psns[i] = ThreadLocalRandom.current().nextInt(1 << 24);
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
        this.remotes = new PeerInfo[qpCount];
        this.remoteAddrs = new long[qpCount];
        this.remoteKeys = new int[qpCount];
        this.pendingFrom = new long[qpCount];
        resetRetired();
        final long[] byQpn = new long[qpCount];
        for (int i = 0; i < qpCount; i++)
        {
            byQpn[i] = ((long) qps[i].qpn() << 32) | i;
        }
        Arrays.sort(byQpn);
        this.sortedQpns = new int[qpCount];
        this.sortedIndex = new int[qpCount];
        for (int i = 0; i < qpCount; i++)
        {
            sortedQpns[i] = (int) (byQpn[i] >>> 32);
            sortedIndex[i] = (int) byQpn[i];
        }
    }

    @Override
    int qpCount()
    {
        return qps.length;
    }

    /** The extra QPs first (they use the CQ the base closes). */
    @Override
    public void close()
    {
        if (qps != null)
        {
            for (int i = qps.length - 1; i > 0; i--)
            {
                if (qps[i] != null)
                {
                    qps[i].close();
                }
            }
        }
        super.close();
    }

    /** The port and the GID this endpoint uses: -1 = LID addressing (InfiniBand, no -x). */
    private record Address(PortAttributes port, int gidIndex, Gid gid)
    {
        static Address of(final Context context, final int ibPort, final int gidIndex)
        {
            final PortAttributes port = context.queryPort(ibPort);
            final int index = gidIndex >= 0 ? gidIndex : port.isEthernet() ? 0 : -1;
            return new Address(port, index, index >= 0 ? context.queryGid(ibPort, index) : Gid.ZERO);
        }
    }

    /**
     * Builds the Java data path over the QP's rings. {@code sharedRegister}: another QP posted by another send queue
     * uses the same BlueFlame register (see {@link #bfRegister()}), so rings take its lock as libmlx5 does.
     */
    RcEndpoint directPath(final DoorbellMode mode, final boolean sharedRegister)
    {
        sqs = new SendQueue[qps.length];
        rqs = new RecvQueue[qps.length];
        cq = CqPoller.of(sendCqObject);
        for (int i = 0; i < qps.length; i++)
        {
            // past the first QP the registers are libmlx5's to share: RegisterMode.AUTO locks those that may be
            sqs[i] = SendQueue.of(qps[i], mode, i == 0 && sharedRegister ? RegisterMode.LOCKED : RegisterMode.AUTO);
            cq.attach(sqs[i]);
            // a DCI or an XRC INI QP has no receive queue: a DcEndpoint receives on its SRQ, an XRC peer on its
            // XRC SRQ
            if (qps[i].type() != QpType.XRC_SEND && qps[i].type() != QpType.DCI)
            {
                rqs[i] = RecvQueue.of(qps[i]);
                cq.attach(rqs[i]);
            }
        }
        sq = sqs[0];
        rq = rqs[0];
        return this;
    }

    /** How the send queues write their BlueFlame registers: one mode, or each mode with its count. */
    String registerModes()
    {
        final Map<RegisterMode, Integer> n = new EnumMap<>(RegisterMode.class);
        for (final SendQueue s : sqs)
        {
            n.merge(s.registerMode(), 1, Integer::sum);
        }
        if (n.size() == 1)
        {
            return n.keySet().iterator().next().name().toLowerCase(Locale.ROOT);
        }
        final StringBuilder b = new StringBuilder();
        n.forEach((m, c) -> b.append(b.isEmpty() ? "" : ", ").append(m.name().toLowerCase(Locale.ROOT)).append(' ')
            .append(c));
        return b.toString();
    }

    /** What the peer needs: addressing and our receive area as the RDMA target. */
    PeerInfo local()
    {
        return local(0);
    }

    /** {@link #local()} of QP {@code i}. */
    PeerInfo local(final int i)
    {
        return PeerInfo.of(port.lid(), qps[i].qpn(), psns[i], gid).withBuffer(mr.rkey(), recvArea, areaSize);
    }

    /** Connects QP i to QP i of {@code peer} (loopback with several QPs), as {@link #connect}. */
    void connectAll(final RcEndpoint peer, final int pathMtu, final int destRdAtomic, final int rdAtomic,
        final int qpTimeout)
    {
        for (int i = 0; i < qps.length; i++)
        {
            connect(i, peer.local(i), pathMtu, destRdAtomic, rdAtomic, qpTimeout);
        }
    }

    /**
     * RESET to RTS towards {@code remote}, as rc_pingpong's pp_connect_ctx does, but with remote access for RDMA and
     * {@code rdAtomic} outstanding READ/atomic requests each way.
     */
    void connect(final PeerInfo remote, final int pathMtu, final int rdAtomic)
    {
        connect(remote, pathMtu, rdAtomic, rdAtomic);
    }

    /**
     * {@code destRdAtomic}: READs/atomics the peer may have outstanding at us (what we told it, perftest's
     * out_reads); {@code rdAtomic}: ours at the peer (at most what it told us).
     */
    void connect(final PeerInfo remote, final int pathMtu, final int destRdAtomic, final int rdAtomic)
    {
        connect(remote, pathMtu, destRdAtomic, rdAtomic, IbOptions.DEFAULT_QP_TIMEOUT);
    }

    /** {@code qpTimeout}: the local ACK timeout exponent (perftest's -u), retried 7 times. */
    void connect(final PeerInfo remote, final int pathMtu, final int destRdAtomic, final int rdAtomic,
        final int qpTimeout)
    {
        connect(0, remote, pathMtu, destRdAtomic, rdAtomic, qpTimeout);
    }

    /** {@link #connect(PeerInfo, int, int, int, int)} of QP {@code i}. */
    void connect(final int i, final PeerInfo remote, final int pathMtu, final int destRdAtomic, final int rdAtomic,
        final int qpTimeout)
    {
        final AddressVector path = pathTo(remote);
        final QueuePair q = qps[i];
        q.toInit(InitAttributes.connected(port.port(), Access.ALL_REMOTE));
        q.toRtr(new RtrAttributes(pathMtu, remote.qpn(), remote.psn(), destRdAtomic, 12, path));
        q.toRts(new RtsAttributes(psns[i], qpTimeout, 7, 7, rdAtomic));
        remotes[i] = remote;
        if (i == 0)
        {
            this.remote = remote;
        }
    }

    /** The address vector towards {@code remote}: GRH on Ethernet or when the peer sent a GID, else its LID. */
    AddressVector pathTo(final PeerInfo remote)
    {
        return remote.gid().interfaceId() != 0 || port.isEthernet()
            ? AddressVector.global(port.port(), remote.gid(), Math.max(0, gidIndex), 1, 0)
            : AddressVector.ib(port.port(), remote.lid(), 0);
    }

    // -------------------------------------------------------------------- perftest's destinations

    /** The destinations this side sends in perftest's exchange, one handshake each: one per QP. */
    int destCount()
    {
        return qps.length;
    }

    /** Destination {@code i} as perftest's exchange carries it: QP {@code i}, our receive area, no SRQ. */
    PerftestWire.Dest dest(final int i, final int outReads)
    {
        return new PerftestWire.Dest(port.lid(), outReads, qps[i].qpn(), psns[i], mr.rkey(), recvArea, gid, 0,
            gidIndex);
    }

    /** Which of the peer's destinations our destination {@code i} connects to (perftest's ctx_connect): the same. */
    int peerDest(final int i)
    {
        return i;
    }

    /**
     * Checks a destination the peer sent: an RC peer sends no SRQ number; one that does runs XRC or DC.
     *
     * @throws IllegalStateException naming the peer's connection type
     */
    void checkPeerDest(final PerftestWire.Dest d)
    {
        if (d.srqn() != 0)
        {
            throw new IllegalStateException("the peer sent SRQ number 0x" + Integer.toHexString(d.srqn())
                + ": it runs XRC or DC (perftest -c XRC/DC); this side runs RC: give both the same -c");
        }
    }

    /**
     * Connects our destination {@code i} to the peer's destination {@code remote} ({@link #peerDest}); {@code
     * remoteSrqn} is the SRQ number it sent (0 from an RC peer). For RC: {@link #connect(int, PeerInfo, int, int,
     * int, int)} of QP i.
     */
    void connectDest(final int i, final PeerInfo remote, final int remoteSrqn, final int pathMtu,
        final int destRdAtomic, final int rdAtomic, final int qpTimeout)
    {
        connect(i, remote, pathMtu, destRdAtomic, rdAtomic, qpTimeout);
    }

    /** The connection type and what the banner tells of it. */
    String connectionName()
    {
        return "RC";
    }

    /** The peer the banner shows: QP 0's. */
    PeerInfo shownRemote()
    {
        return remote;
    }

    /**
     * Everything a run needs once the QP is connected: the patterns the data checks expect ({@code patterns}: the
     * peer is mlx5j), the byte write_lat spins on, the atomic counter, the receives of the send tests.
     */
    void prepare(final PerfOptions o, final boolean patterns)
    {
        if (patterns)
        {
            fillPatterns();
        }
        if (o.test() == PerfTest.WRITE_LAT)
        {
            // the byte write_lat spins on must not start out as the first marker (1): recvPattern(107) is 1; with
            // -a each size spins on its own last byte, which the smaller sizes' WRITEs before it do not reach
            for (final int s : o.sizes())
            {
                buffer.set(ValueLayout.JAVA_BYTE, s - 1, (byte) 0);
            }
        }
        if (o.test().isAtomic())
        {
            buffer.set(HOST64, 0, 0L); // the counter peers add to
        }
        if (o.test().isSend())
        {
            postReceives(o.rxDepth());
        }
    }

    /** Posts {@code n} receives of the whole receive area on each QP and rings once (setup). */
    void postReceives(final int n)
    {
        recvLength = (int) Math.min(Integer.MAX_VALUE, areaSize);
        for (int q = 0; q < rqs.length; q++)
        {
            for (int i = 0; i < n; i++)
            {
                if (!rqs[q].post(i, recvArea, lkey, recvLength))
                {
                    throw new IllegalStateException("receive queue of " + qps[q] + " holds fewer than " + n +
                        " WQEs");
                }
            }
            rqs[q].ring();
        }
    }

    @Override
    void begin(final PerfOptions run)
    {
        operation = switch (run.test())
        {
            case WRITE_LAT, WRITE_BW -> WRITE;
            case READ_LAT, READ_BW -> READ;
            case ATOMIC_LAT, ATOMIC_BW -> FETCH_ADD;
            case SEND_LAT, SEND_BW -> SEND;
            case RAW_LAT, RAW_BW -> throw new IllegalArgumentException(run.test().cliName() + " is not an RC test");
        };
        size = run.size();
        if (remote != null)
        {
            remoteAddr = remote.addr();
            remoteKey = remote.rkey();
        }
        for (int i = 0; i < qps.length; i++)
        {
            if (remotes[i] != null)
            {
                remoteAddrs[i] = remotes[i].addr();
                remoteKeys[i] = remotes[i].rkey();
            }
            sqs[i].signalEvery(run.signalInterval());
        }
    }

    /** The test's operation: a WRITE or SEND of the run's size from the send area, a READ into it, a FETCH_ADD(1). */
    @Override
    boolean post(final long wrId, final int flags)
    {
        if (qps.length > 1)
        {
            return postOn((int) (wrId % qps.length), wrId, flags);
        }
        return switch (operation)
        {
            case WRITE -> sq.rdmaWrite(wrId, sendArea, lkey, size, remoteAddr, remoteKey, flags);
            case READ -> sq.rdmaRead(wrId, sendArea, lkey, size, remoteAddr, remoteKey, flags);
            case FETCH_ADD -> sq.fetchAdd(wrId, sendArea, lkey, remoteAddr, remoteKey, 1L, flags);
            default -> sq.send(wrId, sendArea, lkey, size, flags);
        };
    }

    /** {@link #post} on QP {@code q} (message {@code wrId}, round-robin: {@code q = wrId mod N}). */
    private boolean postOn(final int q, final long wrId, final int flags)
    {
        final SendQueue s = sqs[q];
        return switch (operation)
        {
            case WRITE -> s.rdmaWrite(wrId, sendArea, lkey, size, remoteAddrs[q], remoteKeys[q], flags);
            case READ -> s.rdmaRead(wrId, sendArea, lkey, size, remoteAddrs[q], remoteKeys[q], flags);
            case FETCH_ADD -> s.fetchAdd(wrId, sendArea, lkey, remoteAddrs[q], remoteKeys[q], 1L, flags);
            default -> s.send(wrId, sendArea, lkey, size, flags);
        };
    }

    /** Index of the QP numbered {@code qpn} (a completion's), by binary search: no boxing, no allocation. */
    private int indexOf(final int qpn)
    {
        if (qps.length == 1)
        {
            return 0;
        }
        final int at = Arrays.binarySearch(sortedQpns, qpn);
        if (at < 0)
        {
            throw new IllegalStateException("completion for QP 0x" + Integer.toHexString(qpn) + ", not one of ours");
        }
        return sortedIndex[at];
    }

    /** Message numbering restarts at 0: nothing is pending on any QP. */
    private void resetRetired()
    {
        sendsRetired = 0;
        for (int q = 0; q < pendingFrom.length; q++)
        {
            pendingFrom[q] = q;
        }
    }

    /** One CQ serves both queues: {@link #pollOnce}. */
    @Override
    int pollSend()
    {
        return pollOnce();
    }

    /** One CQ serves both queues: {@link #pollOnce}. */
    @Override
    int pollRecv()
    {
        return pollOnce();
    }

    /** The waits for receives poll the one CQ, which retires the sends too. */
    @Override
    void retireSends()
    {
    }

    @Override
    boolean receives()
    {
        return receives;
    }

    @Override
    String messageName()
    {
        return "SEND";
    }

    @Override
    String stallHint()
    {
        return "peer gone, or the QP in error?";
    }

    /**
     * Polls at most one completion: a receive is counted and replaced by a new receive at once; a send-side
     * completion advances {@link #sendsRetired}. An error completion throws, naming it. Returns 1 if something was
     * polled.
     */
    int pollOnce()
    {
        final int n = poll();
        if (n < 0)
        {
            throw new IllegalStateException(errorText());
        }
        return n;
    }

    /** {@link #pollOnce}, but an error completion returns -1 and stays in {@link #wc}. */
    private int poll()
    {
        if (cq.poll(wc) == 0)
        {
            return 0;
        }
        if (!wc.isSuccess())
        {
            return -1;
        }
        if (wc.opcode() == WcOpcode.RECV)
        {
            received++;
            repostReceive(wc.qpn());
        }
        else if (wc.wrId() >= 0)
        {
            // a completion of message k on QP q completes every message of q up to k (RC completes in order);
            // sendsRetired counts them all, so with one QP it is k + 1
            final int q = indexOf(wc.qpn());
            final long k = wc.wrId();
            final int n = qps.length;
            if (k >= pendingFrom[q])
            {
                sendsRetired += (k - pendingFrom[q]) / n + 1;
                pendingFrom[q] = k + n;
            }
        }
        return 1;
    }

    /** Posts a receive again in place of the one that completed on QP {@code qpn}, and rings. */
    void repostReceive(final int qpn)
    {
        final RecvQueue r = rqs[indexOf(qpn)];
        if (!r.post(received, recvArea, lkey, recvLength))
        {
            throw new IllegalStateException("receive queue full after a receive completed on " + r);
        }
        r.ring();
    }

    /**
     * An RDMA WRITE of {@code length} bytes from the send area to the peer's area (write_lat's post, whose size is
     * the loop's, not {@link #begin}'s); false when the ring is full.
     */
    boolean write(final long wrId, final int length, final int flags)
    {
        return sq.rdmaWrite(wrId, sendArea, lkey, length, remote.addr(), remote.rkey(), flags);
    }

    /** Names the error completion in {@link #wc}. */
    String errorText()
    {
        return "error completion on QP 0x" + Integer.toHexString(qp.qpn()) + ": " + wc;
    }

    /**
     * Waits until every WQE posted so far has completed: a signaled NOP behind them (RC completes in order, so its
     * CQE means the earlier, possibly unsignaled, WRITEs and SENDs are done). Before the QP is destroyed, so that the
     * last message of a run reaches a peer that is still waiting for it. An error completion throws, naming it.
     */
    void quiesce(final long stallNanos)
    {
        if (!settle(stallNanos))
        {
            throw new IllegalStateException(errorText());
        }
    }

    /**
     * {@link #quiesce}, but the first error completion ends the wait and returns false, leaving it in {@link #wc}
     * (the WQEs behind it would only be flushed): for a caller that may excuse it, as the end of a write_lat
     * duration run whose peer left first does.
     */
    boolean settle(final long stallNanos)
    {
        final long deadline = System.nanoTime() + stallNanos;
        for (final SendQueue s : sqs)
        {
            while (!s.nop(-1L, SendFlags.SIGNALED | SendFlags.RING))
            {
                if (poll() < 0)
                {
                    return false;
                }
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException(s + " still full at the end of the run");
                }
            }
        }
        for (final SendQueue s : sqs)
        {
            while (s.outstanding() != 0)
            {
                final int n = poll();
                if (n < 0)
                {
                    return false;
                }
                if (n == 0 && System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException(s.outstanding() + " WQEs of " + s + " never completed");
                }
            }
        }
        resetRetired();     // the next run numbers its messages from 0 again
        return true;
    }

    /** Fills the send area with {@link #sendPattern} and the receive area with {@link #recvPattern}. */
    void fillPatterns()
    {
        for (long i = 0; i < areaSize; i++)
        {
            buffer.set(ValueLayout.JAVA_BYTE, i, recvPattern(i));
            buffer.set(ValueLayout.JAVA_BYTE, areaSize + i, sendPattern(i));
        }
    }

    /** What every side sends from: a shifted copy never matches it (7 * shift is not 0 mod 256 for shift < 256). */
    static byte sendPattern(final long i)
    {
        return (byte) (i * 7 + 0x11);
    }

    /** What every receive area holds before anything arrives: differs from sendPattern at every offset. */
    static byte recvPattern(final long i)
    {
        return (byte) ~sendPattern(i);
    }

    byte recvByte(final long offset)
    {
        return (byte) BYTE.getVolatile(buffer, offset);
    }

    void setSendByte(final long offset, final byte value)
    {
        BYTE.setRelease(buffer, areaSize + offset, value);
    }

    static long align(final long value, final long to)
    {
        return (value + to - 1) & -to;
    }
}
