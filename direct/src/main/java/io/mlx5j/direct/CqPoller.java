package io.mlx5j.direct;

import io.mlx5j.direct.internal.EmulatorLend;
import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.StridingAccess;
import io.mlx5j.doorbell.CqDoorbell;
import io.mlx5j.doorbell.DbrecDescriptor;
import io.mlx5j.doorbell.Dma;
import io.mlx5j.memory.AddressSpace;
import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.CompletionChannel;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.CqRing;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.verbs.internal.VerbsAccess;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.CqeView;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.WcStatus;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A completion queue polled from Java: decodes the CQEs of the ring {@code mlx5dv_init_obj} reported into {@link
 * Completion} views exactly as libmlx5's {@code ibv_poll_cq} fills an {@code ibv_wc} (rdma-core v44
 * providers/mlx5/cq.c mlx5_parse_cqe; the CQE parity test compares every field), retires the send, receive and SRQ
 * slots of the queues {@link #attach attached} to it, performs scatter-to-CQE copies, and updates the consumer-index
 * record once per poll call.
 * <ul>
 * <li>Ownership: a CQE is software's when its opcode is not INVALID and its owner bit matches the pass over the ring
 *     ({@link CqeView#tryAcquire}).</li>
 * <li>Send CQEs carry the wqe_counter of the WQE's first WQEBB; that WQE and every earlier unsignaled one retire.
 *     Receive CQEs complete the oldest receive WQE; SRQ CQEs name their WQE by wqe_counter.</li>
 * <li>Queues are found by the CQE's QP number (the low 24 bits of sop_drop_qpn). SRQ receives are matched through
 *     {@link #attach(SrqRecvQueue, QueuePair)}, or through {@link #attach(SrqRecvQueue)} when it is the only SRQ.</li>
 * <li>Raw receives (a RAW_PACKET QP's RQ, a plain {@link WorkQueue}'s queue, a {@link StridingRecvQueue}) carry the
 *     flow tag where the QP number would be: such a queue is the only receive queue of its CQ. Striding CQEs are
 *     decoded as DPDK's mlx5 PMD does (drivers/net/mlx5/mlx5_rx.c mlx5_rx_burst_mprq; libmlx5 has no decoder for
 *     them): byte_cnt = length [15:0] | strides [29:16] | filler [31], wqe_counter = first stride; filler CQEs only
 *     consume strides and are not reported.</li>
 * <li>Events: {@link #arm(boolean)} writes the arm doorbell; {@link #awaitEvent(long)} waits on the CQ's completion
 *     channel and acknowledges the event.</li>
 * </ul>
 * A CQE for a QP with no live attached queue (never attached, {@link #detach detached}, or destroyed: a reused QP
 * number never reaches the old queue) is reported by {@link UnexpectedCqeException} and left at the head of the CQ,
 * unconsumed, so it is not lost: attach the queue and poll again, or {@link #skip()} it. A CQE naming no outstanding
 * WQE of an attached queue means a corrupt CQ and throws {@link IllegalStateException}.
 * <p>
 * <b>Threads:</b> a CqPoller and the queues attached to it are one group, used from one thread (the counters they
 * share have no locks). {@code -Dmlx5j.debug=true} checks it on every poll and post: the first use records the
 * group's thread, a use from another names both threads. {@link #claim()} hands the group over explicitly.
 * <p>
 * <b>Close rule</b> (as for {@link SendQueue}): close the CQ (or what closes it: its Context) from the thread
 * that polls it, or after that thread has stopped polling, with a happens-before edge between them. Why: a poll call
 * checks once that the CQ is open ({@link #liveBuf()}) and then reads each CQE's ownership byte and the words it
 * decodes at the ring's address through {@link RingStores} (Unsafe loads when the JVM exports jdk.internal.misc, else
 * {@link AddressSpace#ALL}), without the ring segment's per-read checks (issue 15). A
 * close from the polling thread is always safe: the next poll throws {@link IllegalStateException}. With
 * {@code -Dmlx5j.debug=true}, closing the CQ from another thread while the group's thread is alive throws and
 * leaves the CQ open. The rarer CQEs (responder, error, scatter-to-CQE) are decoded through {@link CqeView} over the
 * CQ-scoped segment.
 */
public final class CqPoller
{
    private static final VerbsAccess VERBS = VerbsAccess.get();
    /** The CQ side of a striding WQ's queue, in io.mlx5j.raw (see StridingAccess). */
    private static final StridingAccess STRIDING = StridingAccess.get();
    private final CompletionQueue cq;
    private final CqRing ring;
    private final MemorySegment buf;
    private final int cqeSize;
    /** The ring's address for the polls' unchecked reads ({@link #liveBuf()}) and its arena's scope. */
    private final long bufBase;
    private final MemorySegment.Scope bufScope;
    private final int cqeMask;
    private final int logCqeCnt;
    private final CqeView view = new CqeView();
    private final CqDoorbell doorbell;
    /**
     * Address of the doorbell record's consumer-index word, written by the polls through {@link AddressSpace#ALL}: the
     * record lives in the CQ's arena, so {@link #liveBuf()} covers it.
     */
    private final long setCiAddr;
    private int ci;
    private int eventsSeen;
    final Ownership ownership = new Ownership(this);

    private int[] sqQpn = new int[0];
    private SendQueue[] sqs = new SendQueue[0];
    private int[] rqQpn = new int[0];
    private RecvQueue[] rqs = new RecvQueue[0];
    private int[] srqQpn = new int[0];
    private SrqRecvQueue[] srqByQp = new SrqRecvQueue[0];
    private QueuePair[] srqQps = new QueuePair[0];
    private SrqRecvQueue[] srqs = new SrqRecvQueue[0];
    /**
     * The receive queue of a RAW_PACKET QP, if one is attached: its CQEs carry the matching flow rule's tag where
     * other CQEs carry the QP number (libmlx5 finds the QP by the user index instead, which mlx5dv does not report),
     * so a CQ serves at most one raw receive queue and then no other receive queue.
     */
    private RecvQueue rawRq;
    /** libmlx5's MLX5_RX_CSUM_VALID for the raw receive queue: the device reports IBV_DEVICE_RAW_IP_CSUM. */
    private boolean rawCsumValid;
    /** The striding WQ this CQ completes, if one is attached (then no other receive queue is). */
    private StridingRecvQueue mprq;
    /** WQEs that filler CQEs released since the last reported striding completion. */
    private int fillerReleased;

    private CqPoller(final CompletionQueue cq)
    {
        this.cq = cq;
        this.ring = cq.ring();
        this.buf = ring.buf();
        this.cqeSize = ring.cqeSize();
        view.wrap(buf, cqeSize, ring.cqeCnt());
        this.bufBase = buf.address();
        this.bufScope = buf.scope();
        this.cqeMask = ring.cqeCnt() - 1;
        this.logCqeCnt = Integer.numberOfTrailingZeros(ring.cqeCnt());
        this.doorbell = new CqDoorbell(ring.dbrec(), ring.cqUar(), ring.cqn());
        if (!ring.dbrec().scope().equals(bufScope))
        {
            throw new IllegalStateException(cq + ": the doorbell record and the CQ buffer must share a scope");
        }
        this.setCiAddr = ring.dbrec().address() + DbrecDescriptor.MLX5_CQ_SET_CI_OFFSET;
        this.eventsSeen = cq.eventsReceived();
        if (Ownership.DEBUG)
        {
            // the close rule (class comment): a close of the CQ from another live thread throws and leaves it open
            VERBS.addCloseGuard(cq, resource -> ownership.checkClose(resource));
        }
    }

    public static CqPoller of(final CompletionQueue cq)
    {
        return new CqPoller(cq);
    }

    /**
     * Send CQEs of this queue's QP retire its slots and give back its wr_ids. The queue joins this CqPoller's thread
     * group ({@link #claim()}).
     *
     * @throws IllegalArgumentException if a send queue of a live QP with the same number is attached already
     */
    public CqPoller attach(final SendQueue sq)
    {
        pruneDead();
        if (indexOf(sqQpn, sq.qpn()) >= 0)
        {
            throw new IllegalArgumentException("a SendQueue for QP 0x" + Integer.toHexString(sq.qpn()) +
                " is already attached to " + this);
        }
        Ownership.merge(ownership, sq.core().ownership());
        sqQpn = append(sqQpn, sq.qpn());
        sqs = Arrays.copyOf(sqs, sqs.length + 1);
        sqs[sqs.length - 1] = sq;
        return this;
    }

    /**
     * @throws IllegalArgumentException if a receive queue of a live QP with the same number is attached already, or
     *                                  if a RAW_PACKET QP's receive queue would share this CQ with another receive
     *                                  queue (see the class comment)
     */
    public CqPoller attach(final RecvQueue rq)
    {
        pruneDead();
        if (rawRq != null && rawRq.dead())
        {
            rawRq = null;
        }
        final boolean raw = rq.raw();
        if (rawRq != null || (raw && rqs.length > 0) || (mprq != null && !STRIDING.dead(mprq)))
        {
            throw new IllegalArgumentException("a CQ that completes a RAW_PACKET QP's receives serves no other " +
                "receive queue (its CQEs carry flow tags, not QP numbers): " + rq + " on " + this);
        }
        if (raw)
        {
            rawRq = rq;
            // libmlx5 sets MLX5_RX_CSUM_VALID on raw packet QPs only (verbs.c create_qp; cq.c handle_responder tests
            // it for MLX5_RSC_TYPE_QP resources): a WQ's receives never report IBV_WC_IP_CSUM_OK
            rawCsumValid = rq.queuePair() != null && (rq.queuePair().pd().context().queryDevice().deviceCapFlags() &
                io.mlx5j.bindings.IbvDeviceAttr.IBV_DEVICE_RAW_IP_CSUM) != 0;
        }
        if (indexOf(rqQpn, rq.qpn()) >= 0)
        {
            throw new IllegalArgumentException("a RecvQueue for QP 0x" + Integer.toHexString(rq.qpn()) +
                " is already attached to " + this);
        }
        Ownership.merge(ownership, rq.ownership);
        rqQpn = append(rqQpn, rq.qpn());
        rqs = Arrays.copyOf(rqs, rqs.length + 1);
        rqs[rqs.length - 1] = rq;
        return this;
    }

    /**
     * The striding WQ this CQ completes: its frames, fillers and WQE releases are decoded here. The CQ then serves no
     * other receive queue.
     *
     * @throws IllegalArgumentException if a receive queue is attached already
     */
    public CqPoller attach(final StridingRecvQueue q)
    {
        pruneDead();
        if (rawRq != null && rawRq.dead())
        {
            rawRq = null;
        }
        if (mprq != null && STRIDING.dead(mprq))
        {
            mprq = null;
        }
        if (rawRq != null || rqs.length > 0 || mprq != null)
        {
            throw new IllegalArgumentException("a CQ that completes a striding WQ serves no other receive queue: " + q +
                " on " + this);
        }
        Ownership.merge(ownership, STRIDING.ownership(q));
        mprq = q;
        fillerReleased = 0;
        return this;
    }

    /**
     * Receives of QPs not attached by {@link #attach(SrqRecvQueue, QueuePair)} go to this SRQ if it is the only one.
     */
    public CqPoller attach(final SrqRecvQueue srq)
    {
        Ownership.merge(ownership, srq.ownership);
        if (Arrays.asList(srqs).contains(srq))
        {
            return this;
        }
        srqs = Arrays.copyOf(srqs, srqs.length + 1);
        srqs[srqs.length - 1] = srq;
        return this;
    }

    /** Receives of {@code qp} (created with {@code srq}) are completions of {@code srq}'s WQEs. */
    public CqPoller attach(final SrqRecvQueue srq, final QueuePair qp)
    {
        pruneDead();
        if (indexOf(srqQpn, qp.qpn()) >= 0)
        {
            throw new IllegalArgumentException("QP 0x" + Integer.toHexString(qp.qpn()) + " already receives from "
                + "an attached SRQ on " + this);
        }
        srqQpn = append(srqQpn, qp.qpn());
        srqByQp = Arrays.copyOf(srqByQp, srqByQp.length + 1);
        srqByQp[srqByQp.length - 1] = srq;
        srqQps = Arrays.copyOf(srqQps, srqQps.length + 1);
        srqQps[srqQps.length - 1] = qp;
        return attach(srq);
    }

    /**
     * Stops retiring {@code sq}'s WQEs here: its later CQEs on this CQ are unexpected ({@link UnexpectedCqeException}).
     * The queue leaves this CqPoller's thread group, still owned by the thread that used it.
     *
     * @return false if it was not attached
     */
    public boolean detach(final SendQueue sq)
    {
        final int i = Arrays.asList(sqs).indexOf(sq);
        if (i < 0)
        {
            return false;
        }
        sqQpn = remove(sqQpn, i);
        sqs = remove(sqs, i);
        sq.core().ownership(Ownership.leave(sq.core().ownership(), sq));
        return true;
    }

    /** {@link #detach(SendQueue)} for a receive queue. */
    public boolean detach(final RecvQueue rq)
    {
        final int i = Arrays.asList(rqs).indexOf(rq);
        if (i < 0)
        {
            return false;
        }
        rqQpn = remove(rqQpn, i);
        rqs = remove(rqs, i);
        if (rawRq == rq)
        {
            rawRq = null;   // its CQEs (which carry no QP number) are unexpected from now on
        }
        rq.ownership = Ownership.leave(rq.ownership, rq);
        return true;
    }

    /** {@link #detach(SendQueue)} for a striding WQ's queue. */
    public boolean detach(final StridingRecvQueue q)
    {
        if (mprq != q)
        {
            return false;
        }
        mprq = null;
        fillerReleased = 0;
        STRIDING.ownership(q, Ownership.leave(STRIDING.ownership(q), q));
        return true;
    }

    /** Detaches {@code srq} and every QP bound to it by {@link #attach(SrqRecvQueue, QueuePair)}. */
    public boolean detach(final SrqRecvQueue srq)
    {
        boolean found = false;
        for (int i = srqByQp.length - 1; i >= 0; i--)
        {
            if (srqByQp[i] == srq)
            {
                srqQpn = remove(srqQpn, i);
                srqByQp = remove(srqByQp, i);
                srqQps = remove(srqQps, i);
                found = true;
            }
        }
        final int i = Arrays.asList(srqs).indexOf(srq);
        if (i >= 0)
        {
            srqs = remove(srqs, i);
            found = true;
        }
        if (found)
        {
            srq.ownership = Ownership.leave(srq.ownership, srq);
        }
        return found;
    }

    /**
     * Drops the queues of destroyed QPs. Their numbers may be reused by new QPs, whose queues may then be attached;
     * the lookups skip dead queues too, so a CQE of a new QP never reaches an old queue.
     */
    private void pruneDead()
    {
        for (int i = sqs.length - 1; i >= 0; i--)
        {
            if (sqs[i].dead())
            {
                sqQpn = remove(sqQpn, i);
                sqs = remove(sqs, i);
            }
        }
        for (int i = rqs.length - 1; i >= 0; i--)
        {
            if (rqs[i].dead())
            {
                rqQpn = remove(rqQpn, i);
                rqs = remove(rqs, i);
            }
        }
        for (int i = srqQps.length - 1; i >= 0; i--)
        {
            if (srqQps[i].isClosed())
            {
                srqQpn = remove(srqQpn, i);
                srqByQp = remove(srqByQp, i);
                srqQps = remove(srqQps, i);
            }
        }
    }

    private static int[] append(final int[] a, final int v)
    {
        final int[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }

    private static int indexOf(final int[] a, final int v)
    {
        for (int i = 0; i < a.length; i++)
        {
            if (a[i] == v)
            {
                return i;
            }
        }
        return -1;
    }

    private static int[] remove(final int[] a, final int i)
    {
        final int[] b = new int[a.length - 1];
        System.arraycopy(a, 0, b, 0, i);
        System.arraycopy(a, i + 1, b, i, a.length - 1 - i);
        return b;
    }

    private static <T> T[] remove(final T[] a, final int i)
    {
        final T[] b = Arrays.copyOf(a, a.length - 1);
        System.arraycopy(a, i + 1, b, i, a.length - 1 - i);
        return b;
    }

    /**
     * Poll one completion into {@code c}.
     *
     * On the emulated device an empty poll lends the emulator a few engine passes ({@link EmulatorLend}), as
     * libmlx5's {@code ibv_poll_cq} does there; on a real ConnectX it does nothing more than read the CQE.
     *
     * @return 1 if {@code c} now holds a completion, 0 if the CQ is empty
     */
    public int poll(final Completion c)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final long base = liveBuf();
        final int start = ci;
        try
        {
            int opOwn;
            while ((opOwn = ownedOpOwn(base, ci)) >= 0)
            {
                ci++;
                if (decode(c, base, opOwn))
                {
                    return 1;
                }
            }
            if (EmulatorLend.ENABLED)
            {
                EmulatorLend.lend();
            }
            return 0;
        }
        finally
        {
            if (ci != start)
            {
                consumerIndex(ci);
            }
        }
    }

    /**
     * Poll up to {@code max} completions (at most the batch capacity) into {@code batch.get(0..n-1)}; one
     * consumer-index update for all of them. An empty poll lends the emulated device cycles, as
     * {@link #poll(Completion)} does.
     *
     * <p>This method is a call in the caller's compiled loop, never inlined into it, and that is why the CQE dispatch
     * is written out here rather than called through {@link #decode} as the single poll does: with it this method is
     * above C2's FreqInlineSize (325 bytecodes, CqPollerInliningTest keeps it there), so C2 never inlines it into
     * the caller. Inlined, its loop inside the caller's loop made a receive loop slower (issue 15: the 16-frame raw
     * receive, {@code -XX:CompileCommand} inline against dontinline of this method, 6 forks each: 25.6-28.6 against
     * 19.0-20.9 ns per frame; the requester rows did not change). At 194 bytecodes it was inlined or not by compile
     * order (whether this method's own compilation finished first), so forks of one benchmark came out 20 or 27 ns.
     *
     * @return n, the number of completions
     */
    public int poll(final Completions batch, final int max)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final int limit = Math.min(max, batch.capacity());
        final long base = liveBuf();
        final int start = ci;
        int n = 0;
        try
        {
            int opOwn;
            while (n < limit && (opOwn = ownedOpOwn(base, ci)) >= 0)
            {
                ci++;
                final Completion c = batch.get(n);
                final long at = (long)((ci - 1) & cqeMask) * cqeSize;
                final long cqe64 = base + at + cqeSize - Cqe64.LENGTH;
                final int op = opOwn >>> 4;
                final boolean plainRecv = op == Cqe64.MLX5_CQE_RESP_SEND &&
                    (opOwn & (Cqe64.MLX5_INLINE_SCATTER_32 | Cqe64.MLX5_INLINE_SCATTER_64)) == 0;
                final RecvQueue raw = rawRq;
                final StridingRecvQueue m = mprq;
                final boolean wc;
                try
                {
                    // decode's dispatch, written out (see above)
                    if (op == Cqe64.MLX5_CQE_REQ)
                    {
                        requester(c, cqe64, opOwn);
                        wc = true;
                    }
                    else if (plainRecv && raw != null && !raw.dead())
                    {
                        rawReceive(c, cqe64, raw);
                        wc = true;
                    }
                    else if (plainRecv && m != null && !STRIDING.dead(m))
                    {
                        wc = stridingReceive(c, cqe64, m);
                    }
                    else
                    {
                        view.at(at);
                        wc = decodeOther(c, op);
                    }
                }
                catch (final UnexpectedCqeException e)
                {
                    if (n == 0)
                    {
                        throw e;
                    }
                    return n;   // hand out what came before; the next poll reports the unexpected CQE
                }
                if (wc)
                {
                    n++;
                }
            }
            if (EmulatorLend.ENABLED && n == 0)
            {
                EmulatorLend.lend();
            }
            return n;
        }
        finally
        {
            if (ci != start)
            {
                consumerIndex(ci);
            }
        }
    }

    /**
     * Tells the NIC how far the CQ is consumed, as {@link CqDoorbell#consumerIndex} does (a release store of
     * {@code ci & 0xffffff}, big-endian), at the record's address: the poll call checked the CQ's scope once
     * ({@link #liveBuf()}), and a checked store here would repeat that and the bounds and alignment checks per call.
     */
    private void consumerIndex(final int ci)
    {
        RingStores.putIntBERelease(setCiAddr, ci & DbrecDescriptor.CQ_CI_MASK);
    }

    /**
     * The ring's address, for one poll call's reads through {@link AddressSpace#ALL}, after that call's one liveness
     * check: throws if the CQ is closed (its arena, which scopes the ring, is closed first). What keeps the unchecked
     * reads safe is the close rule in the class comment.
     */
    private long liveBuf()
    {
        if (!bufScope.isAlive())
        {
            throw new IllegalStateException(this + ": the CQ is closed");
        }
        return bufBase;
    }

    /**
     * The op_own byte of CQE {@code ci} if software owns it (as {@link CqeView#tryAcquire}: its opcode is not INVALID
     * and its owner bit matches the pass over the ring), else -1. An owned CQE is followed by
     * {@link Dma#fromDevice()}, libmlx5's udma_from_device_barrier after its ownership check: the CQE body read after
     * it cannot be satisfied earlier.
     */
    private int ownedOpOwn(final long base, final int ci)
    {
        final long opOwnAt = base + (long)(ci & cqeMask) * cqeSize + cqeSize - Cqe64.LENGTH + Cqe64.OP_OWN_OFFSET;
        final int opOwn = RingStores.getByte(opOwnAt) & 0xff;
        if ((opOwn >>> 4) == Cqe64.MLX5_CQE_INVALID || (opOwn & Cqe64.MLX5_CQE_OWNER_MASK) != ((ci >>> logCqeCnt) & 1))
        {
            return -1;
        }
        Dma.fromDevice();
        return opOwn;
    }

    /**
     * Decode CQE {@code ci - 1}, whose op_own {@link #ownedOpOwn} returned; false if it is not a work completion
     * (e.g. RESIZE_CQ) and was skipped. Requester CQEs, the common case, take a method of their own that reads the
     * ring unchecked and is small enough to inline into the poll loop; the others point the view at the CQE.
     */
    private boolean decode(final Completion c, final long base, final int opOwn)
    {
        final long at = (long)((ci - 1) & cqeMask) * cqeSize;
        final int op = opOwn >>> 4;
        if (op == Cqe64.MLX5_CQE_REQ)
        {
            requester(c, base + at + cqeSize - Cqe64.LENGTH, opOwn);
            return true;
        }
        if (op == Cqe64.MLX5_CQE_RESP_SEND &&
            (opOwn & (Cqe64.MLX5_INLINE_SCATTER_32 | Cqe64.MLX5_INLINE_SCATTER_64)) == 0)
        {
            final RecvQueue raw = rawRq;
            if (raw != null && !raw.dead())
            {
                rawReceive(c, base + at + cqeSize - Cqe64.LENGTH, raw);
                return true;
            }
            final StridingRecvQueue m = mprq;
            if (m != null && !STRIDING.dead(m))
            {
                return stridingReceive(c, base + at + cqeSize - Cqe64.LENGTH, m);
            }
        }
        view.at(at);
        return decodeOther(c, opOwn >>> 4);
    }

    /**
     * A successful requester CQE (handle_good_req), whose mlx5_cqe64 part is at address {@code cqe64}: the WQE it
     * names and every earlier unsignaled one retire.
     */
    private void requester(final Completion c, final long cqe64, final int opOwn)
    {
        // sop_drop_qpn, wqe_counter, signature and op_own in one read (mlx5_cqe64 0x38..0x3f)
        final long tail = RingStores.getLongBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET);
        final int sopDropQpn = (int)(tail >>> 32);
        final int qpn = sopDropQpn & 0xffffff;
        final int wqeOpcode = sopDropQpn >>> 24;
        final SendQueue sq = sendQueue(qpn);
        if (sq == null)
        {
            throw unexpected(qpn, "a send CQE");
        }
        if (c.wide)
        {
            c.clear();
        }
        else
        {
            // only these (and wr_id, written below) can hold a previous completion's values
            c.status = 0;
            c.byteLen = 0;
            c.wcFlags = 0;
        }
        c.qpn = qpn;
        requesterOpcode(c, wqeOpcode);
        final int wqeCounter = ((int)tail >>> 16) & 0xffff;
        if (wqeOpcode == Mlx5Opcode.MLX5_OPCODE_RDMA_READ)
        {
            c.byteLen = (int)Be.BE32.get(AddressSpace.ALL, cqe64 + Cqe64.BYTE_CNT_OFFSET);
        }
        else if (wqeOpcode == Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS ||
            wqeOpcode == Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA)
        {
            c.byteLen = sq.atomicBytes(wqeCounter);
        }
        // Requester scatter-to-CQE data starts at the CQE entry itself, for either flag: libmlx5 (mlx5_parse_cqe,
        // MLX5_CQE_REQ) copies SCATTER_32 data from the entry start, not from the mlx5_cqe64 part as its responder
        // path does; with 64-byte CQEs the two are the same address. (For SCATTER_64 libmlx5 v44 passes "cqe - 1" on
        // a void pointer, one byte before the entry: a bug not copied here.)
        if ((opOwn & (Cqe64.MLX5_INLINE_SCATTER_32 | Cqe64.MLX5_INLINE_SCATTER_64)) != 0)
        {
            final CqeView v = view.at(cqe64 - bufBase - cqeSize + Cqe64.LENGTH);
            if (scatterOffset(v) >= 0)
            {
                c.status = sq.copyToSendWqe(wqeCounter, buf, v.cqeOffset(), c.byteLen).code();
            }
        }
        c.wrId = sq.complete(wqeCounter);
    }

    /**
     * A frame received by the raw packet QP or WQ this CQ serves alone (MLX5_CQE_RESP_SEND, no scatter-to-CQE): the
     * market-data poll loop's common case. It fills exactly the fields {@link #responder}, {@link #ethernet} and
     * {@link #addressing} fill for such a CQE (and zeroes the rest, as {@link Completion#clear()} would), from seven
     * 8-byte reads at the CQE's address through {@link RingStores}, whose CQ {@link #liveBuf()} checked, instead of
     * fifteen reads through the view, each checked (issue 15: the 16-per-poll raw receive cost per frame what one per
     * poll did; the reads by Unsafe instead of through {@link AddressSpace#ALL} took about 1 ns more off a frame). The
     * masks and shifts split mlx5_cqe64's big-endian words at the offsets named in {@link Cqe64}.
     */
    private void rawReceive(final Completion c, final long cqe64, final RecvQueue rq)
    {
        // 0x10..0x17: rss_hash_type, ml_path, reserved (2), check_sum, slid
        final long w10 = RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_TYPE_OFFSET);
        // 0x18..0x1f: flags_rqpn, hds_ip_ext, l4_hdr_type_etc, vlan_info
        final long w18 = RingStores.getLongBE(cqe64 + Cqe64.FLAGS_RQPN_OFFSET);
        final int hdsIpExt = (int)(w18 >>> 24) & 0xff;
        int wcFlags = 0;
        if (rawCsumValid && (hdsIpExt & (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK)) ==
            (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK) &&
            ((w18 >>> 18) & 3) == Cqe64.MLX5_CQE_L3_HDR_TYPE_IPV4)
        {
            wcFlags = WcOpcode.WC_IP_CSUM_OK;
        }
        // The 4-byte fields as the low or high half of the aligned big-endian 8-byte word that holds them: 0x08
        // (rss_hash_result at 0x0c), 0x20 (imm_inval_pkey at 0x24), 0x28 (byte_cnt at 0x2c), 0x38 (sop_drop_qpn).
        // Two methods, not one: together they are too big for C2 to inline into a poll loop (FreqInlineSize).
        c.rawFrame(w10, w18, wcFlags,
            (int)RingStores.getLongBE(cqe64 + Cqe64.SRQN_UIDX_OFFSET),
            (int)RingStores.getLongBE(cqe64 + Cqe64.BYTE_CNT_OFFSET - 4),
            RingStores.getLongBE(cqe64 + Cqe64.TIMESTAMP_OFFSET),
            (int)(RingStores.getLongBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET) >>> 32),
            (int)RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_RESULT_OFFSET - 4),
            rq.frameAddress(rq.tailSlot()));
        c.wrId = rq.complete();
    }

    /**
     * A CQE of the striding WQ this CQ serves (RESP_SEND, no scatter), read at its address as {@link #rawReceive}
     * reads a raw one; the same fields and rules as {@link #striding}, which decodes it through the view.
     */
    private boolean stridingReceive(final Completion c, final long cqe64, final StridingRecvQueue m)
    {
        final int byteCnt = (int)RingStores.getLongBE(cqe64 + Cqe64.BYTE_CNT_OFFSET - 4);
        final int strides = (byteCnt & Cqe64.MPRQ_STRIDE_NUM_MASK) >>> Cqe64.MPRQ_STRIDE_NUM_SHIFT;
        final long tail = RingStores.getLongBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET);
        final int strideIndex = ((int)tail >>> 16) & 0xffff;
        if ((byteCnt & Cqe64.MPRQ_FILLER_MASK) != 0)
        {
            fillerReleased += STRIDING.consume(m, strideIndex, strides);
            return false;
        }
        // no checksum flag: libmlx5 sets MLX5_RX_CSUM_VALID for raw packet QPs only, and a WQ is not one
        c.rawFrame(RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_TYPE_OFFSET),
            RingStores.getLongBE(cqe64 + Cqe64.FLAGS_RQPN_OFFSET), 0,
            (int)RingStores.getLongBE(cqe64 + Cqe64.SRQN_UIDX_OFFSET),
            byteCnt & Cqe64.MPRQ_LEN_MASK,
            RingStores.getLongBE(cqe64 + Cqe64.TIMESTAMP_OFFSET),
            (int)(tail >>> 32),
            (int)RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_RESULT_OFFSET - 4),
            STRIDING.frameAddress(m, strideIndex));
        c.wrId = STRIDING.tailWrId(m);
        c.strideIndex = strideIndex;
        c.strideCount = strides;
        c.releasedWqes = STRIDING.consume(m, strideIndex, strides) + fillerReleased;
        fillerReleased = 0;
        return true;
    }

    /** Every CQE but a successful requester one. */
    private boolean decodeOther(final Completion c, final int op)
    {
        final CqeView v = view;
        final int qpn = v.qpn();
        c.clear();
        c.wide = true;
        c.qpn = qpn;
        switch (op)
        {
            case Cqe64.MLX5_CQE_RESP_WR_IMM, Cqe64.MLX5_CQE_RESP_SEND, Cqe64.MLX5_CQE_RESP_SEND_IMM,
                Cqe64.MLX5_CQE_RESP_SEND_INV ->
            {
                if (mprq != null)
                {
                    return striding(c, qpn);
                }
                responder(c, op, qpn);
                return true;
            }
            case Cqe64.MLX5_CQE_REQ_ERR ->
            {
                final SendQueue sq = sendQueue(qpn);
                if (sq == null)
                {
                    throw unexpected(qpn, "a send error CQE");
                }
                error(c);
                c.wrId = sq.complete(v.wqeCounter());
                return true;
            }
            case Cqe64.MLX5_CQE_RESP_ERR ->
            {
                final StridingRecvQueue m = mprq;
                if (m != null)
                {
                    if (STRIDING.dead(m))
                    {
                        throw unexpected(qpn, "a receive error CQE of a destroyed striding WQ");
                    }
                    error(c);
                    c.wrId = STRIDING.tailWrId(m);
                    STRIDING.releaseOldest(m);
                    c.releasedWqes = 1 + fillerReleased;
                    fillerReleased = 0;
                    return true;
                }
                final RecvQueue rq = recvQueue(qpn);
                final SrqRecvQueue srq = rq == null ? srq(qpn) : null;
                if (rq == null && srq == null)
                {
                    throw unexpected(qpn, "a receive error CQE");
                }
                error(c);
                c.wrId = rq != null ? rq.complete() : srq.complete(v.wqeCounter());
                return true;
            }
            case Cqe64.MLX5_CQE_RESIZE_CQ ->
            {
                return false;
            }
            default -> throw unexpected(qpn, "opcode " + op + ", which mlx5j does not decode");
        }
    }

    /** handle_good_req: the WC opcode and byte_len come from the WQE opcode the CQE echoes. */
    private static void requesterOpcode(final Completion c, final int wqeOpcode)
    {
        switch (wqeOpcode)
        {
            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM ->
            {
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.opcode = WcOpcode.RDMA_WRITE;
            }
            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE -> c.opcode = WcOpcode.RDMA_WRITE;
            case Mlx5Opcode.MLX5_OPCODE_SEND_IMM ->
            {
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.opcode = WcOpcode.SEND;
            }
            case Mlx5Opcode.MLX5_OPCODE_SEND, Mlx5Opcode.MLX5_OPCODE_SEND_INVAL -> c.opcode = WcOpcode.SEND;
            case Mlx5Opcode.MLX5_OPCODE_RDMA_READ -> c.opcode = WcOpcode.RDMA_READ;
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS ->
            {
                c.opcode = WcOpcode.COMP_SWAP;
                c.byteLen = 8;
            }
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA ->
            {
                c.opcode = WcOpcode.FETCH_ADD;
                c.byteLen = 8;
            }
            // libmlx5 has no case for the masked atomics (its verbs cannot post them); mlx5j reports them like
            // their plain forms
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS -> c.opcode = WcOpcode.COMP_SWAP;
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA -> c.opcode = WcOpcode.FETCH_ADD;
            default -> c.opcode = WcOpcode.SEND; // NOP: libmlx5 reports wr_data, 0 (IBV_WC_SEND)
        }
    }

    private void responder(final Completion c, final int op, final int qpn)
    {
        final CqeView v = view;
        final long cqe64 = v.cqeOffset() + cqeSize - Cqe64.LENGTH;
        c.byteLen = v.byteCnt();
        c.timestamp = v.timestamp();
        final long scatter = scatterOffset(v);
        final RecvQueue rq = recvQueue(qpn);
        final SrqRecvQueue srqOfQp = rq == null ? srq(qpn) : null;
        if (rq == null && srqOfQp == null)
        {
            throw unexpected(qpn, "a receive CQE");
        }
        int err = 0;
        if (rq != null)
        {
            final int slot = rq.tailSlot();
            if (rq == rawRq)
            {
                ethernet(c, slot, rq);
            }
            c.wrId = rq.complete();
            if (scatter >= 0)
            {
                err = rq.copyToRecvWqe(slot, buf, scatter, c.byteLen);
            }
        }
        else
        {
            final int wqeCounter = v.wqeCounter();
            c.wrId = srqOfQp.complete(wqeCounter);
            if (scatter >= 0)
            {
                err = srqOfQp.copyToRecvSrq(wqeCounter, buf, scatter, c.byteLen);
            }
        }
        if (err != 0)
        {
            c.status = err;     // libmlx5 returns here: opcode, flags and addressing stay unset
            return;
        }
        final int immInvalPkey = v.immInvalPkey();
        switch (op)
        {
            case Cqe64.MLX5_CQE_RESP_WR_IMM ->
            {
                c.opcode = WcOpcode.RECV_RDMA_WITH_IMM;
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.immOrInv = immInvalPkey;
            }
            case Cqe64.MLX5_CQE_RESP_SEND -> c.opcode = WcOpcode.RECV;
            case Cqe64.MLX5_CQE_RESP_SEND_IMM ->
            {
                c.opcode = WcOpcode.RECV;
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.immOrInv = immInvalPkey;
            }
            default ->
            {
                c.opcode = WcOpcode.RECV;
                c.wcFlags |= WcOpcode.WC_WITH_INV;
                c.immOrInv = immInvalPkey;
            }
        }
        addressing(c, cqe64, immInvalPkey);
    }

    /** handle_responder's addressing fields, from the CQE whose mlx5_cqe64 part is at {@code cqe64}. */
    private void addressing(final Completion c, final long cqe64, final int immInvalPkey)
    {
        final CqeView v = view;
        final int flagsRqpn = v.flagsRqpn();
        c.slid = v.slid();
        c.sl = (flagsRqpn >>> 24) & 0xf;
        c.srcQp = flagsRqpn & 0xffffff;
        c.dlidPathBits = io.mlx5j.memory.Be.u8(buf, cqe64 + ML_PATH_OFFSET) & 0x7f;
        if (((flagsRqpn >>> 28) & 3) != 0)
        {
            c.wcFlags |= WcOpcode.WC_GRH;
        }
        c.pkeyIndex = immInvalPkey & 0xffff;
    }

    /**
     * A receive CQE of the striding WQ. A filler (bit 31 of byte_cnt) consumes the rest of a WQE and is not a frame:
     * false, nothing reported. A frame: its length (byte_cnt bits 15..0), first stride (wqe_counter) and stride
     * count (bits 29..16), where it is in the WQE's buffer, the Ethernet fields as for a raw QP, and the WQEs
     * released by it and the fillers before it.
     */
    private boolean striding(final Completion c, final int qpn)
    {
        final StridingRecvQueue m = mprq;
        if (STRIDING.dead(m))
        {
            throw unexpected(qpn, "a receive CQE of a destroyed striding WQ");
        }
        final CqeView v = view;
        final int byteCnt = v.byteCnt();
        final int strides = (byteCnt & Cqe64.MPRQ_STRIDE_NUM_MASK) >>> Cqe64.MPRQ_STRIDE_NUM_SHIFT;
        final int strideIndex = v.wqeCounter();
        if ((byteCnt & Cqe64.MPRQ_FILLER_MASK) != 0)
        {
            fillerReleased += STRIDING.consume(m, strideIndex, strides);
            return false;
        }
        c.wrId = STRIDING.tailWrId(m);
        c.frameAddress = STRIDING.frameAddress(m, strideIndex);
        c.byteLen = byteCnt & Cqe64.MPRQ_LEN_MASK;
        c.strideIndex = strideIndex;
        c.strideCount = strides;
        c.timestamp = v.timestamp();
        c.opcode = WcOpcode.RECV;
        c.flowTag = v.flowTag();
        c.cvlan = v.vlanInfo();
        c.l4HdrTypeEtc = v.l4HdrTypeEtc();
        c.hdsIpExt = v.hdsIpExt();
        c.rssHash = v.rssHashResult();
        c.rssHashType = v.rssHashType();
        addressing(c, v.cqeOffset() + cqeSize - Cqe64.LENGTH, v.immInvalPkey());
        c.releasedWqes = STRIDING.consume(m, strideIndex, strides) + fillerReleased;
        fillerReleased = 0;
        return true;
    }

    /**
     * The Ethernet fields of a raw receive CQE: IBV_WC_IP_CSUM_OK exactly as libmlx5 derives it (cq.c get_csum_ok,
     * for QPs with MLX5_RX_CSUM_VALID), the flow tag (mlx5_cq_read_flow_tag), the stripped VLAN's TCI
     * (mlx5_cq_read_wc_cvlan), L3/L4 header types, the RSS hash, and where the frame is: the first data segment of
     * the receive WQE, whose buffer the device filled from its start.
     */
    private void ethernet(final Completion c, final int slot, final RecvQueue rq)
    {
        final CqeView v = view;
        if (rawCsumValid && v.ipCsumOk())
        {
            c.wcFlags |= WcOpcode.WC_IP_CSUM_OK;
        }
        c.flowTag = v.flowTag();
        c.cvlan = v.vlanInfo();
        c.l4HdrTypeEtc = v.l4HdrTypeEtc();
        c.hdsIpExt = v.hdsIpExt();
        c.rssHash = v.rssHashResult();
        c.rssHashType = v.rssHashType();
        c.frameAddress = rq.frameAddress(slot);
    }

    /** ml_path: byte 0x11 of mlx5_cqe64 (its low 7 bits are the DLID path bits). */
    private static final int ML_PATH_OFFSET = 0x11;

    private void error(final Completion c)
    {
        final int syndrome = view.syndrome();
        c.status = WcStatus.fromSyndrome(syndrome).code();
        c.syndrome = syndrome;
        c.vendorErr = view.vendorSyndrome();
    }

    /** Where scatter-to-CQE data is in the CQ buffer, or -1. */
    private long scatterOffset(final CqeView v)
    {
        return v.scatterOffset();
    }

    /** The live send queue of {@code qpn}, or null: a destroyed QP's queue never matches (its number may be reused). */
    private SendQueue sendQueue(final int qpn)
    {
        final int[] q = sqQpn;
        for (int i = 0; i < q.length; i++)
        {
            if (q[i] == qpn && !sqs[i].dead())
            {
                return sqs[i];
            }
        }
        return null;
    }

    private RecvQueue recvQueue(final int qpn)
    {
        final RecvQueue raw = rawRq;
        if (raw != null)
        {
            return raw.dead() ? null : raw;
        }
        final int[] q = rqQpn;
        for (int i = 0; i < q.length; i++)
        {
            if (q[i] == qpn && !rqs[i].dead())
            {
                return rqs[i];
            }
        }
        return null;
    }

    /** The SRQ receives of {@code qpn} go to, or null. */
    private SrqRecvQueue srq(final int qpn)
    {
        final int[] q = srqQpn;
        for (int i = 0; i < q.length; i++)
        {
            if (q[i] == qpn && !srqQps[i].isClosed())
            {
                return srqByQp[i];
            }
        }
        return srqs.length == 1 ? srqs[0] : null;
    }

    /**
     * The CQE just acquired belongs to no attached queue: give it back (the consumer index steps back, so the CQE
     * stays at the head and nothing was changed by it) and report it with a copy of the entry.
     */
    private UnexpectedCqeException unexpected(final int qpn, final String what)
    {
        ci--;
        final CqeView v = view.at((long)(ci & cqeMask) * cqeSize);
        final byte[] copy = buf.asSlice(v.cqeOffset(), cqeSize).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        return new UnexpectedCqeException("CQE " + ci + " of " + cq + " is " + what + " for QP 0x" +
            Integer.toHexString(qpn) + " (wqe_counter " + v.wqeCounter() + "), and no live queue of that QP is "
            + "attached to " + this + "; it stays at the head of the CQ: attach the queue, or skip() it", ci, qpn,
            v.opcode(), v.wqeCounter(), copy);
    }

    /**
     * Consumes the CQE at the head of the CQ without decoding it: the way past an {@link UnexpectedCqeException}
     * the caller has dealt with.
     *
     * @return true if there was a CQE to skip
     */
    public boolean skip()
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        if (!view.tryAcquire(ci))
        {
            return false;
        }
        ci++;
        doorbell.consumerIndex(ci);
        return true;
    }

    /**
     * Request an event for the next completion (or the next solicited one): the arm doorbell, as libmlx5's
     * mlx5_arm_cq with this poller's consumer index. Events received since the last arm advance the arm sequence
     * number first (mlx5_cq_event does that in libmlx5).
     */
    public void arm(final boolean solicitedOnly)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final int events = cq.eventsReceived();
        while (eventsSeen != events)
        {
            doorbell.eventReceived();
            eventsSeen++;
        }
        doorbell.arm(ci, solicitedOnly);
    }

    /**
     * Wait on the CQ's completion channel for an event of this CQ and acknowledge it. Events of other CQs of the same
     * channel that arrive meanwhile are consumed (and counted on their CQs) without ending the wait.
     *
     * @param timeoutMillis how long to wait; negative waits forever
     * @return true if an event of this CQ arrived, false on timeout
     */
    public boolean awaitEvent(final long timeoutMillis)
    {
        final CompletionChannel channel = cq.channel();
        if (channel == null)
        {
            throw new IllegalStateException(cq + " was created without a completion channel");
        }
        final long deadline = System.nanoTime() + Math.max(0, timeoutMillis) * 1_000_000L;
        while (true)
        {
            final long left = timeoutMillis < 0 ? -1 : Math.max(0, (deadline - System.nanoTime()) / 1_000_000L);
            if (!io.mlx5j.bindings.FdPoll.readable(channel.fd(), left < 0 ? -1 : left * 1_000_000L))
            {
                return false;
            }
            final CompletionQueue fired = channel.awaitEvent();
            if (fired == cq)
            {
                cq.ackEvents();
                return true;
            }
        }
    }

    /** Free-running count of CQEs consumed (its low 24 bits are in the consumer-index record). */
    public int consumerIndex()
    {
        return ci;
    }

    public CompletionQueue completionQueue()
    {
        return cq;
    }

    /**
     * Makes the calling thread the owner of this queue's group: this CqPoller and every queue attached to it (and,
     * through them, the other CqPollers they are attached to).
     * Use it to hand the group to another thread
     * (for example a dedicated poller) after the previous owner has stopped using it; the hand-over itself must be
     * a happens-before edge ({@link Thread#start()}, a concurrent queue, a volatile write and read), because the
     * queues' counters are plain fields. Only {@code -Dmlx5j.debug=true} checks ownership; without it this records
     * the owner and nothing reads it.
     *
     * @return this
     */
    public CqPoller claim()
    {
        ownership.claim();
        return this;
    }

    @Override
    public String toString()
    {
        return "CqPoller(cqn 0x" + Integer.toHexString(ring.cqn()) + ")";
    }
}
