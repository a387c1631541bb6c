// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.EmulatorLend;
import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.direct.internal.QueueBridge;
import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.StridingReceive;
import io.mlx5j.doorbell.CqDoorbell;
import io.mlx5j.doorbell.DbrecDescriptor;
import io.mlx5j.doorbell.Dma;
import io.mlx5j.memory.AddressSpace;
import io.mlx5j.memory.RingStores;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.CompletionChannel;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.CqRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.verbs.internal.VerbsAccess;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.CqeView;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A completion queue polled from Java: decodes the CQEs of the ring {@code mlx5dv_init_obj} reported into {@link
 * Completion} views exactly as libmlx5's {@code ibv_poll_cq} fills an {@code ibv_wc} (rdma-core v44
 * providers/mlx5/cq.c mlx5_parse_cqe; the CQE parity test compares every field), retires the send, receive and SRQ
 * slots of the queues {@link #attach attached} to it, performs scatter-to-CQE copies, and updates the consumer-index
 * record once per poll call. This class holds the poll loops, the ownership check and the dispatch on the CQE
 * opcode; one decoder per kind of CQE does the rest ({@link RequesterCqe}, {@link ResponderCqe} with {@link
 * ReceiveCqe} and {@link SrqReceiveCqe}, {@link RawReceiveCqe}, {@link StridingCqe}, {@link ErrorCqe}), and
 * {@link CqQueues} finds the queue a CQE belongs to.
 * <ul>
 * <li>Ownership: a CQE is software's when its opcode is not INVALID and its owner bit matches the pass over the ring
 *     ({@link CqeView#tryAcquire}).</li>
 * <li>Send CQEs carry the wqe_counter of the WQE's first WQEBB; that WQE and every earlier unsignaled one retire.
 *     Receive CQEs complete the oldest receive WQE; SRQ CQEs name their WQE by wqe_counter.</li>
 * <li>Queues are found by the CQE's QP number (the low 24 bits of sop_drop_qpn) in constant time, whatever the number
 *     of QPs on the CQ (a hash table, with the queue found last in front of it). SRQ receives are matched through
 *     {@link #attach(SrqRecvQueue, QueuePair)}, or through {@link #attach(SrqRecvQueue)} when it is the only SRQ.</li>
 * <li>Raw receives (a RAW_PACKET QP's RQ, a plain {@link WorkQueue}'s queue, a {@link StridingRecvQueue}) carry the
 *     flow tag where the QP number would be: such a queue is the only receive queue of its CQ. Striding CQEs are
 *     decoded as DPDK's mlx5 PMD does (see {@link StridingCqe}); filler CQEs only consume strides and are not
 *     reported.</li>
 * <li>Events: {@link #arm(boolean)} writes the arm doorbell; {@link #awaitEvent(long)} waits on the CQ's completion
 *     channel and acknowledges the event.</li>
 * </ul>
 * <b>CQEs no attached queue takes</b> never block the CQ and never throw on a poll (unless {@link #strict strict}):
 * <ul>
 * <li>An <em>orphan</em>: a CQE of a queue that was attached here and is not any more, because it was {@link #detach
 *     detached} or its QP, WQ or SRQ was destroyed (a reused QP number never reaches the old queue). Typically the
 *     flushes (WR_FLUSH_ERR) of a QP torn down with WQEs outstanding, on a CQ that other QPs share. It is consumed
 *     without allocation, reported to nobody, and counted ({@link #orphanCqes()}). A destroyed QP's CQE that names
 *     a WQE of an SRQ still attached here gives that WQE back to the SRQ's free list, as libmlx5's CQ clean does.</li>
 * <li>An <em>unexpected</em> CQE: its QP number never had a queue attached here (or retired too long ago: see
 *     {@link CqQueues}), or its opcode is one mlx5j does not decode. It is consumed, counted ({@link
 *     #unexpectedCqes()}), and copied into a snapshot ({@link #lastUnexpected()}: the entry and what it names),
 *     without allocation. Chosen over a {@link Completion} with a status of its own so that a poll loop written for
 *     ibv_poll_cq's statuses sees nothing it does not know, and over an exception so that a CQ shared by many QPs
 *     never stops at one bad entry; a program that wants to know checks the counter.</li>
 * <li>{@link #strict(boolean) Strict mode} (off by default; for tests and bring-up) reports an unexpected CQE by
 *     {@link UnexpectedCqeException}, which allocates, and leaves the CQE at the head of the CQ, unconsumed: attach
 *     the queue and poll again, or {@link #skip()} it. Orphans are consumed in either mode.</li>
 * </ul>
 * A CQE naming no outstanding WQE of an attached, live queue means a corrupt CQ and throws
 * {@link IllegalStateException}.
 * <p>
 * <b>Threads:</b> a CqPoller and the queues attached to it are one group, used from one thread (the counters they
 * share have no locks). {@code -Dmlx5j.debug=true} checks it on every poll and post: the first use records the
 * group's thread, a use from another names both threads. {@link #claim()} hands the group over explicitly.
 * <p>
 * <b>Close rule</b> (as for {@link SendQueue}): close the CQ (or what closes it: its Context) from the thread
 * that polls it, or after that thread has stopped polling, with a happens-before edge between them. Why: a poll call
 * checks once that the CQ is open ({@link #liveBuf()}) and then reads each CQE's ownership byte and the words it
 * decodes at the ring's address through {@link RingStores} (Unsafe loads when the JVM exports jdk.internal.misc, else
 * {@link AddressSpace#ALL}), without the ring segment's per-read checks. A
 * close from the polling thread is always safe: the next poll throws {@link IllegalStateException}. With
 * {@code -Dmlx5j.debug=true}, closing the CQ from another thread while the group's thread is alive throws and
 * leaves the CQ open. The rarer CQEs (responder, error, scatter-to-CQE) are decoded through {@link CqeView} over the
 * CQ-scoped segment.
 * <p>
 * <b>Closing a QP from any thread</b>: {@link #closeAsync(QueuePair)}. Who may call what:
 * <ul>
 * <li>any thread: {@link #closeAsync(QueuePair)}, {@link #closeAsync(SrqRecvQueue)}, {@link #closesPending()}, and
 *     the returned {@link QpClose}'s and {@link SrqClose}'s {@code isDone}, {@code await} (not the owner: it would
 *     wait for itself) and {@code lastWqeReached};</li>
 * <li>the group's thread (the owner): everything else here and on the attached queues, as above. It carries the
 *     requests out inside its poll calls (ERR, the flush completions handed to it like any other, then the destroy),
 *     so it must keep polling until they are done; the only cost a poll call pays for them is one volatile load.</li>
 * </ul>
 */
public final class CqPoller
{
    private static final VerbsAccess VERBS = VerbsAccess.get();
    private final CompletionQueue cq;
    private final CqRing ring;
    /** The ring, the view over it, its entry size and address: read by the decoders. */
    final MemorySegment buf;
    final int cqeSize;
    /** The ring's address for the polls' unchecked reads ({@link #liveBuf()}) and its arena's scope. */
    final long bufBase;
    private final MemorySegment.Scope bufScope;
    private final int cqeMask;
    private final int logCqeCnt;
    final CqeView view = new CqeView();
    private final CqDoorbell doorbell;
    /**
     * Address of the doorbell record's consumer-index word, written by the polls through {@link AddressSpace#ALL}: the
     * record lives in the CQ's arena, so {@link #liveBuf()} covers it.
     */
    private final long setCiAddr;
    private int ci;
    private int eventsSeen;
    final Ownership ownership = new Ownership(this);
    /** The attached queues, by the number their CQEs carry. */
    final CqQueues queues = new CqQueues();
    private long orphanCqes;
    private long unexpectedCqes;
    /** Error CQEs by syndrome (mlx5_err_cqe.syndrome, one byte); written by {@link ErrorCqe#status} only. */
    final long[] errorCqes = new long[256];
    /** MLX5_CQE_SYNDROME_WR_FLUSH_ERR (rdma-core v44 mlx5dv.h). */
    static final int FLUSH_SYNDROME = 0x05;
    /** MLX5DV_CQE_RES_FORMAT_* of a compressing CQ, 0 if none; the open block: title slot, size, next, stride. */
    private final int zipFormat;
    private int zipTitle;
    private int zipCount;
    private int zipNext;
    private int zipStride;
    private final UnexpectedCqe lastUnexpected;
    private boolean strict;
    /**
     * Close requests not yet over ({@link #closeAsync}): raised by the requesting thread before it publishes the
     * request, lowered by the owner when one is over. The one volatile load a poll call adds (a plain load on x86-64
     * and AArch64's ldar); non-zero sends the poll to {@link #serviceCloses(Completion)} first.
     */
    private volatile int closes;
    /** New requests, a lock-free stack (Treiber): pushed by any thread, taken whole by the owner. */
    private volatile CloseRequest inbox;
    /** Requests being carried out, linked through {@link CloseRequest#activeNext}: owner thread only. */
    private CloseRequest active;
    private static final VarHandle CLOSES;
    private static final VarHandle INBOX;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            CLOSES = lookup.findVarHandle(CqPoller.class, "closes", int.class);
            INBOX = lookup.findVarHandle(CqPoller.class, "inbox", CloseRequest.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

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
        this.lastUnexpected = new UnexpectedCqe(cqeSize);
        this.zipFormat = cq.cqeCompression();
        if (Ownership.DEBUG)
        {
            // the close rule (class comment): a close of the CQ from another live thread throws and leaves it open
            VERBS.addCloseGuard(cq, resource -> ownership.checkClose(resource));
        }
    }

    /**
     * A poller over {@code cq}'s ring. Setup path; the poller then belongs to the thread that polls.
     *
     * @param cq the CQ, on an mlx5 device
     * @return the poller
     */
    public static CqPoller of(final CompletionQueue cq)
    {
        return new CqPoller(cq);
    }


    /**
     * Send CQEs of this queue's QP retire its slots and give back its wr_ids. The queue joins this CqPoller's thread
     * group ({@link #claim()}).
     *
     * @param sq the send queue
     * @throws IllegalArgumentException if a send queue of a live QP with the same number is attached already
     * @return this poller
     */
    public CqPoller attach(final SendQueue sq)
    {
        queues.attach(sq, this, ownership);
        return this;
    }

    /**
     * Receive CQEs of this queue's QP or WQ complete its WQEs. The queue joins this CqPoller's thread group.
     *
     * @param rq the receive queue
     * @throws IllegalArgumentException if a receive queue of a live QP with the same number is attached already, or
     *                                  if a RAW_PACKET QP's or a WQ's receive queue would share this CQ with another
     *                                  receive queue (see the class comment)
     * @return this poller
     */
    public CqPoller attach(final RecvQueue rq)
    {
        if (zipFormat != 0 && !rq.cqSide().flowTagged())
        {
            throw new IllegalArgumentException(this + " has compressed CQEs, which mlx5j decodes for raw packet QPs "
                + "and WQs only, not for " + rq);
        }
        queues.attach(rq, this, ownership);
        return this;
    }

    /**
     * The striding WQ this CQ completes: its frames, fillers and WQE releases are decoded here. The CQ then serves no
     * other receive queue.
     *
     * @param q the striding WQ's queue
     * @throws IllegalArgumentException if a receive queue is attached already
     * @return this poller
     */
    public CqPoller attach(final StridingRecvQueue q)
    {
        queues.attach(QueueBridge.cqSide(q), this, ownership);
        return this;
    }

    /**
     * Receives of QPs not attached by {@link #attach(SrqRecvQueue, QueuePair)} go to this SRQ if it is the only one.
     * <p>
     * An XRC SRQ ({@link io.mlx5j.verbs.SharedReceiveQueue#isXrc()}) completes on its own CQ, which must be this
     * poller's: its receives (of any XRC TGT QP of its domain, whose number the completion carries in
     * {@link Completion#qpn}) are found by the SRQ index the CQE carries, in constant time, whatever the number of
     * XRC SRQs attached. Call from the poller's thread, like every attach.
     *
     * @param srq the SRQ's queue
     * @return this poller
     * @throws IllegalArgumentException if the CQ has compressed CQEs, or {@code srq} is an XRC SRQ of another CQ
     */
    public CqPoller attach(final SrqRecvQueue srq)
    {
        if (zipFormat != 0)
        {
            throw new IllegalArgumentException(this + " has compressed CQEs, which mlx5j decodes for raw packet QPs "
                + "and WQs only, not for an SRQ");
        }
        if (srq.xrcCqeIndex() >= 0 && srq.srq().cq() != cq)
        {
            throw new IllegalArgumentException(srq + " is an XRC SRQ completing on " + srq.srq().cq() +
                ", not on this poller's CQ " + cq);
        }
        queues.attach(srq, ownership);
        return this;
    }

    /**
     * Receives of {@code qp} (created with {@code srq}) are completions of {@code srq}'s WQEs.
     *
     * @param srq the SRQ's queue
     * @param qp a QP created with the SRQ
     * @throws IllegalArgumentException if a live QP of that number is bound to an attached SRQ already
     * @return this poller
     */
    public CqPoller attach(final SrqRecvQueue srq, final QueuePair qp)
    {
        if (srq.xrcCqeIndex() >= 0)
        {
            throw new IllegalArgumentException(srq + " is an XRC SRQ: its receives are found by the SRQ index of "
                + "their CQEs, not by QP; attach it with attach(SrqRecvQueue)");
        }
        queues.bind(srq, qp, this);
        return attach(srq);
    }

    /**
     * Stops retiring {@code sq}'s WQEs here: its later CQEs on this CQ are consumed as orphans ({@link #orphanCqes()}).
     * The queue leaves this CqPoller's thread group, still owned by the thread that used it.
     *
     * @param sq the send queue
     * @return false if it was not attached
     */
    public boolean detach(final SendQueue sq)
    {
        return queues.detach(sq);
    }

    /**
     * {@link #detach(SendQueue)} for a receive queue.
     *
     * @param rq the receive queue
     * @return false if it was not attached
     */
    public boolean detach(final RecvQueue rq)
    {
        return queues.detach(rq);
    }

    /**
     * {@link #detach(SendQueue)} for a striding WQ's queue.
     *
     * @param q the striding WQ's queue
     * @return false if it was not attached
     */
    public boolean detach(final StridingRecvQueue q)
    {
        return queues.detach(QueueBridge.cqSide(q));
    }

    /**
     * Detaches {@code srq} and every QP bound to it by {@link #attach(SrqRecvQueue, QueuePair)}; their later CQEs are
     * orphans, and the SRQ WQEs they name stay the caller's.
     *
     * @param srq the SRQ's queue
     * @return false if it was not attached
     */
    public boolean detach(final SrqRecvQueue srq)
    {
        return queues.detach(srq);
    }

    /**
     * CQEs consumed as orphans: of queues that were attached here and are not any more (detached, or their QP, WQ or
     * SRQ destroyed), such as the flushes of a QP torn down with WQEs outstanding. Free-running.
     *
     * @return the count
     */
    public long orphanCqes()
    {
        return orphanCqes;
    }

    /**
     * CQEs consumed as unexpected: no queue of their QP number was ever attached here (or it retired long ago), or
     * their opcode is one mlx5j does not decode. Free-running; the last one is {@link #lastUnexpected()}. In
     * {@link #strict(boolean) strict mode} they throw instead and are not counted.
     *
     * @return the count
     */
    public long unexpectedCqes()
    {
        return unexpectedCqes;
    }

    /**
     * Error CQEs (MLX5_CQE_REQ_ERR, MLX5_CQE_RESP_ERR) this poller reported with syndrome {@code syndrome}
     * ({@link io.mlx5j.wqe.WcStatus#fromSyndrome(int)} names it: 0x05 a flush, 0x16 RNR retries exceeded, ...).
     * Free-running; counted only on the error path, and read without allocation. For the group's thread (see the class
     * comment); another thread may see a stale value.
     *
     * @param syndrome the CQE syndrome, 0 to 255
     * @return how many error CQEs carried it
     * @throws IndexOutOfBoundsException if {@code syndrome} is not 0 to 255
     */
    public long errorCqes(final int syndrome)
    {
        return errorCqes[syndrome];
    }

    /**
     * All error CQEs this poller reported, flushes included ({@link #errorCqes(int)} summed). Free-running.
     *
     * @return the count
     */
    public long errorCqes()
    {
        long sum = 0;
        for (final long n : errorCqes)
        {
            sum += n;
        }
        return sum;
    }

    /**
     * Flush error CQEs (syndrome MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x05): WQEs given back unexecuted because their queue
     * had gone to the error state; also the WQEs an XRC SRQ closed through {@link #closeAsync(SrqRecvQueue)} still
     * had posted at its destroy, which no CQE reports and this poller hands back itself. Free-running.
     *
     * @return the count, {@code errorCqes(0x05)}
     */
    public long flushes()
    {
        return errorCqes[FLUSH_SYNDROME];
    }

    /**
     * {@return the last CQE counted by {@link #unexpectedCqes()}: a snapshot this poller overwrites with the next one
     * (copy what you need before polling again); all zero while there was none}
     */
    public UnexpectedCqe lastUnexpected()
    {
        return lastUnexpected;
    }

    /**
     * Strict mode: an unexpected CQE throws {@link UnexpectedCqeException} (with a copy of the entry, so it allocates)
     * and stays at the head of the CQ, unconsumed, until the right queue is attached or {@link #skip()} consumes it;
     * a batch poll first returns the completions before it. Off by default, where unexpected CQEs are consumed and
     * counted. For tests and bring-up: on a CQ that many QPs share, one such CQE stops every QP's completions.
     *
     * @param on true for strict mode
     * @return this
     */
    public CqPoller strict(final boolean on)
    {
        strict = on;
        return this;
    }

    /**
     * Poll one completion into {@code c}.
     *
     * On the emulated device an empty poll lends the emulator a few engine passes ({@link EmulatorLend}), as
     * libmlx5's {@code ibv_poll_cq} does there; on a real ConnectX it does nothing more than read the CQE.
     *
     * @param c the view to fill
     * @return 1 if {@code c} now holds a completion, 0 if the CQ is empty
     */
    public int poll(final Completion c)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        if (closes != 0 && serviceCloses(c))
        {
            return 1;
        }
        final long base = liveBuf();
        final int start = ci;
        try
        {
            while (true)
            {
                if (zipNext < zipCount)
                {
                    if (zipped(c, base))
                    {
                        return 1;
                    }
                    continue;
                }
                final int opOwn = ownedOpOwn(base, ci);
                if (opOwn < 0)
                {
                    break;
                }
                if (zipFormat != 0 && (opOwn & CompressedCqe.FORMAT_MASK) == CompressedCqe.COMPRESSED)
                {
                    openBlock(base);
                    continue;
                }
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
     * the caller. Inlined, its loop inside the caller's loop made a receive loop slower (JMH: the 16-frame raw
     * receive, {@code -XX:CompileCommand} inline against dontinline of this method, 6 forks each: 25.6-28.6 against
     * 19.0-20.9 ns per frame; the requester rows did not change). At 194 bytecodes it was inlined or not by compile
     * order (whether this method's own compilation finished first), so forks of one benchmark came out 20 or 27 ns.
     * Orphans and unexpected CQEs are consumed and do not count towards {@code max}.
     *
     * @param batch the views to fill
     * @param max the most completions to return
     * @return n, the number of completions
     */
    public int poll(final Completions batch, final int max)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final int limit = Math.min(max, batch.capacity());
        int n = closes != 0 ? serviceCloses(batch, limit) : 0;
        final long base = liveBuf();
        final int start = ci;
        try
        {
            while (n < limit)
            {
                if (zipNext < zipCount)
                {
                    if (zipped(batch.get(n), base))
                    {
                        n++;
                    }
                    continue;
                }
                final int opOwn = ownedOpOwn(base, ci);
                if (opOwn < 0)
                {
                    break;
                }
                if (zipFormat != 0 && (opOwn & CompressedCqe.FORMAT_MASK) == CompressedCqe.COMPRESSED)
                {
                    openBlock(base);
                    continue;
                }
                ci++;
                final Completion c = batch.get(n);
                final long at = (long)((ci - 1) & cqeMask) * cqeSize;
                final long cqe64 = base + at + cqeSize - Cqe64.LENGTH;
                final int op = opOwn >>> 4;
                final boolean plainRecv = op == Cqe64.MLX5_CQE_RESP_SEND &&
                    (opOwn & (Cqe64.MLX5_INLINE_SCATTER_32 | Cqe64.MLX5_INLINE_SCATTER_64)) == 0;
                final OrderedReceive raw = queues.raw;
                final StridingReceive m = queues.striding;
                final boolean wc;
                try
                {
                    // decode's dispatch, written out (see above)
                    if (op == Cqe64.MLX5_CQE_REQ)
                    {
                        wc = RequesterCqe.decode(this, c, cqe64, opOwn);
                    }
                    else if (plainRecv && raw != null && !raw.dead())
                    {
                        RawReceiveCqe.decode(this, c, cqe64, raw);
                        wc = true;
                    }
                    else if (plainRecv && m != null && !m.dead())
                    {
                        wc = StridingCqe.decode(this, c, cqe64, m);
                    }
                    else
                    {
                        view.at(at);
                        wc = decodeOther(c, op);
                    }
                }
                catch (final UnexpectedCqeException e)
                {
                    // strict mode only
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
     * A title CQE at {@code ci}: its block's completions come next ({@link CompressedCqe}). The consumer index stays
     * at the title until the last of them, so the device reuses none of the block's slots before they are read.
     *
     * @throws IllegalStateException if the title counts fewer than 2 or more completions than the ring holds
     */
    private void openBlock(final long base)
    {
        final long title64 = base + ((long)(ci & cqeMask) << 6);
        final int n = (int)RingStores.getLongBE(title64 + Cqe64.BYTE_CNT_OFFSET - 4);
        if (n < 2 || n > cqeMask + 1)
        {
            throw new IllegalStateException(this + ": compressed CQE block at CQE " + ci + " counts " +
                Integer.toUnsignedString(n) + " completions in a ring of " + (cqeMask + 1));
        }
        zipTitle = ci;
        zipCount = n;
        zipNext = 0;
        zipStride = (int)RingStores.getLongBE(title64 + Cqe64.SOP_DROP_QPN_OFFSET) >>> 16 & 0xffff;
    }

    /**
     * The next completion of the open block into {@code c}; after the last one every slot of the block is handed
     * back (INVALID opcode) and the consumer index moves past it.
     *
     * @return false if it was consumed as an orphan (its queue was detached or destroyed) and nothing was reported
     */
    private boolean zipped(final Completion c, final long base)
    {
        final int i = zipNext++;
        final long title64 = base + ((long)(zipTitle & cqeMask) << 6);
        final long mini = base + CompressedCqe.miniOffset(zipTitle, i, cqeMask);
        boolean wc = true;
        final OrderedReceive raw = queues.raw;
        final StridingReceive m = queues.striding;
        if (raw != null && !raw.dead())
        {
            CompressedCqe.raw(this, c, title64, mini, zipFormat, raw);
        }
        else if (m != null && !m.dead())
        {
            zipStride = CompressedCqe.striding(this, c, title64, mini, zipFormat, zipStride, m);
        }
        else
        {
            orphanCqes++;
            wc = false;
        }
        if (zipNext == zipCount)
        {
            for (int k = 0; k < zipCount; k++)
            {
                RingStores.putIntBE(base + ((long)((zipTitle + k) & cqeMask) << 6) + Cqe64.WQE_COUNTER_OFFSET,
                    CompressedCqe.INVALID_WORD);
            }
            ci = zipTitle + zipCount;
            zipCount = 0;
            zipNext = 0;
        }
        return wc;
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
     * (RESIZE_CQ, a striding filler, an orphan or an unexpected CQE) and was consumed. Requester CQEs, the common case,
     * take a decoder that reads the ring unchecked and is small enough to inline into the poll loop, and so do the
     * plain receives of a flow-tagged or striding queue; the others point the view at the CQE.
     */
    private boolean decode(final Completion c, final long base, final int opOwn)
    {
        final long at = (long)((ci - 1) & cqeMask) * cqeSize;
        final int op = opOwn >>> 4;
        if (op == Cqe64.MLX5_CQE_REQ)
        {
            return RequesterCqe.decode(this, c, base + at + cqeSize - Cqe64.LENGTH, opOwn);
        }
        if (op == Cqe64.MLX5_CQE_RESP_SEND &&
            (opOwn & (Cqe64.MLX5_INLINE_SCATTER_32 | Cqe64.MLX5_INLINE_SCATTER_64)) == 0)
        {
            final OrderedReceive raw = queues.raw;
            if (raw != null && !raw.dead())
            {
                RawReceiveCqe.decode(this, c, base + at + cqeSize - Cqe64.LENGTH, raw);
                return true;
            }
            final StridingReceive m = queues.striding;
            if (m != null && !m.dead())
            {
                return StridingCqe.decode(this, c, base + at + cqeSize - Cqe64.LENGTH, m);
            }
        }
        view.at(at);
        return decodeOther(c, op);
    }

    /** Every CQE but a successful requester one and the plain receives of a flow-tagged or striding queue. */
    private boolean decodeOther(final Completion c, final int op)
    {
        final int qpn = view.qpn();
        c.clear();
        c.wide = true;
        c.qpn = qpn;
        return switch (op)
        {
            case Cqe64.MLX5_CQE_RESP_WR_IMM, Cqe64.MLX5_CQE_RESP_SEND, Cqe64.MLX5_CQE_RESP_SEND_IMM,
                Cqe64.MLX5_CQE_RESP_SEND_INV -> ResponderCqe.decode(this, c, op, qpn);
            case Cqe64.MLX5_CQE_REQ_ERR -> ErrorCqe.requester(this, c, qpn);
            case Cqe64.MLX5_CQE_RESP_ERR -> ErrorCqe.responder(this, c, qpn);
            case Cqe64.MLX5_CQE_RESIZE_CQ -> false;
            default -> unexpected(qpn, UnexpectedCqe.UNKNOWN_OPCODE);
        };
    }

    /** A send CQE no live attached queue takes: an orphan or an unexpected CQE. @return false: no completion */
    boolean unclaimedSend(final int qpn)
    {
        return queues.sendRetired(qpn) ? orphan() : unexpected(qpn, UnexpectedCqe.NO_SEND_QUEUE);
    }

    /**
     * A receive CQE no live attached queue takes: an orphan (whose SRQ WQE {@code wqeCounter}, if a destroyed QP's,
     * goes back to its SRQ) or an unexpected CQE. @return false: no completion
     */
    boolean unclaimedRecv(final int qpn, final int wqeCounter)
    {
        // an XRC SRQ detached (or destroyed) with WQEs completing: its late CQEs name it by srqn_uidx
        return queues.recvRetired(qpn, wqeCounter) || queues.xrcRetired(view.srqnUidx()) ? orphan()
            : unexpected(qpn, UnexpectedCqe.NO_RECEIVE_QUEUE);
    }

    private boolean orphan()
    {
        orphanCqes++;
        return false;
    }

    /**
     * CQE {@code ci - 1} belongs to no attached queue, or has an opcode mlx5j does not decode: counted and copied into
     * {@link #lastUnexpected()}, or, in strict mode, given back (the consumer index steps back, so the CQE stays at the
     * head and nothing was changed by it) and thrown with a copy of the entry.
     *
     * @return false: no completion
     */
    private boolean unexpected(final int qpn, final int reason)
    {
        final long at = (long)((ci - 1) & cqeMask) * cqeSize;
        final CqeView v = view.at(at);
        if (strict)
        {
            ci--;
            final byte[] copy = buf.asSlice(at, cqeSize).toArray(ValueLayout.JAVA_BYTE);
            throw new UnexpectedCqeException("CQE " + ci + " of " + cq + " is " + UnexpectedCqe.describe(reason) +
                " for QP 0x" + Integer.toHexString(qpn) + " (opcode " + v.opcode() + ", wqe_counter " +
                v.wqeCounter() + "); it stays at the head of the CQ: attach the queue, or skip() it", ci, qpn,
                v.opcode(), v.wqeCounter(), copy);
        }
        unexpectedCqes++;
        lastUnexpected.record(ci - 1, qpn, v.opcode(), v.wqeCounter(), reason, buf, at);
        return false;
    }

    /**
     * Consumes the CQE at the head of the CQ without decoding it: the way past an {@link UnexpectedCqeException}
     * (strict mode) the caller has dealt with. On a compressed CQ a title CQE goes with its whole block.
     *
     * @throws IllegalStateException if a compressed block is half read (poll its remaining completions first)
     * @return true if there was a CQE to skip
     */
    public boolean skip()
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        if (zipNext < zipCount)
        {
            throw new IllegalStateException(this + ": a compressed CQE block is being read (completion " + zipNext +
                " of " + zipCount + "): poll it to its end");
        }
        if (!view.tryAcquire(ci))
        {
            return false;
        }
        if (zipFormat != 0 && (view.opOwn() & CompressedCqe.FORMAT_MASK) == CompressedCqe.COMPRESSED)
        {
            // a title: the whole block goes, its slots handed back as after a poll
            openBlock(liveBuf());
            final long base = liveBuf();
            for (int k = 0; k < zipCount; k++)
            {
                RingStores.putIntBE(base + ((long)((zipTitle + k) & cqeMask) << 6) + Cqe64.WQE_COUNTER_OFFSET,
                    CompressedCqe.INVALID_WORD);
            }
            ci = zipTitle + zipCount;
            zipCount = 0;
            zipNext = 0;
        }
        else
        {
            ci++;
        }
        doorbell.consumerIndex(ci);
        return true;
    }

    /**
     * Request an event for the next completion (or the next solicited one): the arm doorbell, as libmlx5's
     * mlx5_arm_cq with this poller's consumer index. Events received since the last arm advance the arm sequence
     * number first (mlx5_cq_event does that in libmlx5).
     *
     * @param solicitedOnly true to raise the event only for a solicited CQE (or an error one)
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

    /** {@return free-running count of CQEs consumed (its low 24 bits are in the consumer-index record)} */
    public int consumerIndex()
    {
        return ci;
    }

    /** {@return the CQ this poller reads} */
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

    /**
     * Requests the close of {@code qp} from any thread: the QP's queues refuse posts from now on (their posts throw
     * {@link IllegalStateException}), and the thread that polls this poller carries out the close inside its next
     * poll calls: ERR, every outstanding WQE's flush completion handed to the poll's caller, destroy, done (see
     * {@link QpClose} for the order and the SRQ rule). The requester waits on the returned handle if it wants to.
     * <p>
     * Threads: any thread, the owner included; lock-free (a CAS on this poller's inbox and one on its count of
     * requests) and it allocates the handle, so the owner's poll path allocates nothing for it. A request for a QP
     * that is closed already is done at once. Two requests for one QP are both carried out (the second finds the QP
     * gone). The close needs a thread that polls: if the owner has stopped for good, another thread that took the
     * group over ({@link #claim()}, after a happens-before edge with the owner's last use) polls until
     * {@link QpClose#isDone()}, or closes the QP itself as the close rule (class comment) allows.
     * <p>
     * What is waited for: the QP's {@link SendQueue} and {@link RecvQueue} attached to this poller or to a poller of
     * its group, which is the one thread that posts to the QP. A queue of the QP that another thread posts to (a
     * RecvQueue attached to a poller of another group) is refused posts but not waited for, and that thread may be
     * inside a post when the QP is destroyed: keep all of a QP's queues in one group, as the thread rule asks.
     *
     * <p>
     * An XRC TGT QP ({@link QpType#XRC_RECV}, {@code XrcDomain.createTgtQp}) has no queues and no CQ of its own, but
     * it is not free of WQEs: while a message that spans several packets arrives, it holds the XRC SRQ WQE the
     * message goes into, and its move to ERR completes that WQE with WR_FLUSH_ERR on the SRQ's CQ, naming the TGT QP.
     * A destroy without that (the close rule's direct {@code close()}) loses the WQE to every TGT QP of the domain,
     * and a late CQE of it could reach a new QP that reuses the number. So its close follows the SRQ rule: request it
     * on the poller of the CQ of the XRC SRQs it receives into (their one CQ; with SRQs on several CQs, a flush goes
     * to the CQ of the SRQ the interrupted message named), report its {@code QP_LAST_WQE_REACHED} to the handle
     * ({@link QpClose#lastWqeReached()}), and the owner destroys it once the CQEs the CQ held at that moment are
     * polled. The SRQ's other WQEs stay posted for the domain's other TGT QPs. Its INI peer's outstanding WQEs then
     * end in RETRY_EXC_ERR and WR_FLUSH_ERR: a responder in ERR, or a QP number no QP holds, drops requests without
     * an answer (the IBA's rule, and the emulated device's), so the requester's retries run out.
     *
     * @param qp a QP whose send or receive CQ is this poller's CQ; for a QP on an SRQ, its receive CQ must be; an XRC
     *           TGT QP: see above
     * @return the handle: {@link QpClose#await}, {@link QpClose#isDone()}
     * @throws IllegalArgumentException if {@code qp} does not complete on this poller's CQ as described
     */
    public QpClose closeAsync(final QueuePair qp)
    {
        if (qp.type() != QpType.XRC_RECV &&
            (qp.srq() != null ? qp.recvCq() != cq : qp.sendCq() != cq && qp.recvCq() != cq))
        {
            throw new IllegalArgumentException(qp + (qp.srq() != null ? " receives from an SRQ, and its receive CQ"
                : " has neither its send nor its receive CQ") + " on " + this + ": request its close on the "
                + "CqPoller of " + (qp.srq() != null ? "its receive CQ" : "one of its CQs"));
        }
        final QpClose c = new QpClose(qp, this);
        if (qp.isClosed())
        {
            c.step();   // nothing for the owner to do: done now (no state of the owner is touched)
            return c;
        }
        VERBS.closeRequested(qp);
        push(c);
        return c;
    }

    /**
     * Requests the close of an XRC SRQ from any thread: its queue refuses posts from now on (they throw
     * {@link IllegalStateException}), and the thread that polls this poller carries the close out inside its next
     * poll calls: once the closes of TGT QPs requested here are done and the CQEs the CQ then held are polled, it
     * destroys the SRQ and hands every WQE still posted to the caller of poll as a WR_FLUSH_ERR completion (QP number
     * 0), so each WQE comes back exactly once (see {@link SrqClose} for the order and what it cannot wait for).
     * <p>
     * Threads: any thread, lock-free, as {@link #closeAsync(QueuePair)}. Close the TGT QPs first ({@link
     * #closeAsync(QueuePair)} on this poller, or before this request): once the SRQ is destroyed, a TGT QP that names
     * it gets no LAST_WQE_REACHED any more on the emulated device, and its close would wait for it.
     *
     * @param srq the queue of an XRC SRQ completing on this poller's CQ, attached to this poller
     * @return the handle: {@link SrqClose#await}, {@link SrqClose#isDone()}
     * @throws IllegalArgumentException if {@code srq} is not an XRC SRQ, or completes on another CQ
     */
    public SrqClose closeAsync(final SrqRecvQueue srq)
    {
        if (srq.xrcCqeIndex() < 0 || srq.srq().cq() != cq)
        {
            throw new IllegalArgumentException(srq + (srq.xrcCqeIndex() < 0 ? " is not an XRC SRQ: close the QPs "
                + "created on it (closeAsync(qp)), then the SRQ as the close rule allows" : " completes on "
                + srq.srq().cq() + ", not on this poller's CQ " + cq));
        }
        final SrqClose c = new SrqClose(srq, this);
        srq.closeRequested();
        push(c);
        return c;
    }

    /** Publishes a close request to the owner: lock-free, any thread. */
    private void push(final CloseRequest c)
    {
        CLOSES.getAndAdd(this, 1);    // before the push: the owner's count never drops below what its inbox holds
        CloseRequest head;
        do
        {
            head = inbox;
            c.inboxNext = head;
        }
        while (!INBOX.compareAndSet(this, head, c));
    }

    /**
     * Whether a QP close requested here and not over yet may receive into {@code srq} (an XRC TGT QP, or a QP created
     * on it): what an {@link SrqClose} waits for. Owner thread.
     */
    boolean qpClosesPending(final io.mlx5j.verbs.SharedReceiveQueue srq)
    {
        for (CloseRequest c = active; c != null; c = c.activeNext)
        {
            if (c instanceof QpClose q && !q.isDone() && q.receivesInto(srq))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Close requests not over yet ({@link #closeAsync(QueuePair)}, {@link #closeAsync(SrqRecvQueue)}); any thread.
     *
     * @return the count
     */
    public int closesPending()
    {
        return closes;
    }

    /**
     * The owner's side of {@link #closeAsync}, at the start of a poll call while requests are pending: takes the new
     * requests, moves each one a step on (ERR; destroy once its WQEs' flush completions were polled), then lets them
     * fill {@code c} with a completion no CQE reports (an XRC SRQ's WQEs left at its destroy). Off the poll's fast
     * path: it runs native calls (modify, destroy), which allocate.
     *
     * @param c the view to fill, or null to fill none
     * @return whether {@code c} was filled
     */
    private boolean serviceCloses(final Completion c)
    {
        CloseRequest in = (CloseRequest) INBOX.getAndSet(this, null);
        while (in != null)
        {
            final CloseRequest next = in.inboxNext;
            in.inboxNext = null;
            in.activeNext = active;
            active = in;
            in = next;
        }
        CloseRequest prev = null;
        CloseRequest r = active;
        while (r != null)
        {
            final CloseRequest next = r.activeNext;
            if (r.step())
            {
                if (prev == null)
                {
                    active = next;
                }
                else
                {
                    prev.activeNext = next;
                }
                r.activeNext = null;
                CLOSES.getAndAdd(this, -1);
            }
            else
            {
                prev = r;
            }
            r = next;
        }
        return c != null && flushInto(c);
    }

    /** {@link #serviceCloses(Completion)} for a batch: fills up to {@code limit} views. @return how many */
    private int serviceCloses(final Completions batch, final int limit)
    {
        int n = 0;
        if (serviceCloses(limit > 0 ? batch.get(0) : null))
        {
            n = 1;
            while (n < limit && flushInto(batch.get(n)))
            {
                n++;
            }
        }
        return n;
    }

    /** One more completion no CQE reports, from the requests being carried out. Owner thread. */
    private boolean flushInto(final Completion c)
    {
        for (CloseRequest a = active; a != null; a = a.activeNext)
        {
            if (a.flushInto(c))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The free-running index just past the last CQE the device has handed to software so far (this poller's
     * consumer index if none): what a QP on an SRQ waits to have polled after its LAST_WQE_REACHED. Owner thread.
     */
    int producedUpTo()
    {
        final long base = liveBuf();
        int k = ci;
        while (k - ci <= cqeMask && ownedOpOwn(base, k) >= 0)
        {
            k++;
        }
        return k;
    }

    @Override
    public String toString()
    {
        return "CqPoller(cqn 0x" + Integer.toHexString(ring.cqn()) + ")";
    }
}
