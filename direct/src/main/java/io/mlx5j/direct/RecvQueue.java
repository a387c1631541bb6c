// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.Scatter;
import io.mlx5j.direct.internal.ScatterList;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.memory.AddressSpace;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.verbs.WqRing;
import io.mlx5j.verbs.internal.QpStateListener;
import io.mlx5j.verbs.internal.VerbsAccess;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.RecvRing;
import io.mlx5j.wqe.RecvWqeWriter;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The receive queue of one QP (not an SRQ), or a plain receive {@link WorkQueue}, posted from Java with the bytes
 * libmlx5's mlx5_post_recv / mlx5_post_wq_recv write (rdma-core v44 providers/mlx5/qp.c; the two write the same
 * WQE): one data segment per non-empty SGE, then a terminator entry (byte_count 0, MLX5_INVALID_LKEY) if the WQE has
 * room for one; {@link #ring()} publishes the new head in the doorbell record. Receive WQEs complete in posting
 * order, so the CQ retires the oldest one.
 * <p>
 * Confined to one thread, which also polls the CQ this queue is attached to ({@code -Dmlx5j.debug=true} checks).
 * A full ring returns false; too many SGEs throw IllegalArgumentException.
 * <p>
 * <b>State changes of the QP.</b> The queue follows the doorbell record through the transitions in which libmlx5
 * rewrites it: {@link QueuePair#toReset()} restarts the ring at 0 (refused while receives are outstanding), and a
 * RAW_PACKET QP's move to RTR, where libmlx5 writes its own receive head (0) into the record, publishes this queue's
 * head again, so receives posted and rung before RTR are kept.
 * <p>
 * <b>Close rule</b> (as for {@link SendQueue}): close the QP or WQ (or what closes it) from the thread that
 * posts to this queue, or after that thread has stopped posting, with a happens-before edge between them. Why: the
 * one-buffer {@link #post(long, long, int, int)} checks once that the queue is open and then writes the WQE at the
 * ring's address through {@link AddressSpace#ALL}. A close from the posting thread is always safe: the next post throws
 * {@link IllegalStateException}. With {@code -Dmlx5j.debug=true}, a close from another thread while the queue's
 * thread is alive throws and leaves the QP or WQ open. The staging form and {@link #ring()} access the ring and the
 * doorbell record through their scoped segments.
 * <p>
 * <b>Closing from another thread</b>: {@link CqPoller#closeAsync}, from any thread. From the request on, every post
 * of this queue throws {@link IllegalStateException} ("the QP is closing"); {@link #ring()} still publishes what was
 * posted before it, and each outstanding receive comes back as a flush completion before the QP is destroyed
 * ({@link QpClose}).
 */
public final class RecvQueue
{
    /** The poller's view of this queue (see {@link CqSide}). */
    private final OrderedReceive cqSide = new CqSide();
    /** Posts refused because the ring was full; counted on that path only ({@link #refusedFull()}). */
    private long refusedFull;
    private static final VerbsAccess VERBS = VerbsAccess.get();
    /** The QP, or null for a WQ. */
    private final QueuePair qp;
    /** The WQ, or null for a QP's RQ. */
    private final WorkQueue wq;
    private final int qpn;
    private final MemorySegment ring;
    /** The ring's address for the one-buffer posts' unchecked stores ({@link #liveRing()}) and its arena's scope. */
    private final long ringBase;
    private final MemorySegment.Scope ringScope;
    /**
     * A close of the QP was requested (CqPoller.closeAsync): set once, by any thread, with a release store; read by
     * the posts' {@link #liveRing()} with an opaque load (a plain load's cost, never hoisted out of a posting loop).
     */
    private boolean closeRequested;
    private static final VarHandle CLOSE_REQUESTED;

    static
    {
        try
        {
            CLOSE_REQUESTED = MethodHandles.lookup().findVarHandle(RecvQueue.class, "closeRequested", boolean.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }
    private final long ringMask;
    private final int stride;
    private final int maxSge;
    private final RecvRing rq;
    private final RecvWqeWriter writer = new RecvWqeWriter();
    private final DoorbellRecord dbrec;
    /**
     * Per slot, the address in the WQE's first data segment, recorded when it is posted: where a raw receive's frame
     * starts ({@link #frameAddress}), known without reading the ring back.
     */
    private final long[] firstAddr;
    private int published;
    Ownership ownership = new Ownership(this);

    private long stWrId;
    private boolean staged;
    /** Entries of the WR being staged. */
    private final ScatterList sgl;

    private RecvQueue(final QueuePair qp)
    {
        final QpRing rings = qp.rings();
        if (rings.rqWqeCnt() < 1)
        {
            throw new IllegalArgumentException(qp + " has no receive queue" +
                (qp.srq() != null ? " (it receives from an SRQ: use SrqRecvQueue)" : ""));
        }
        this.qp = qp;
        this.wq = null;
        this.qpn = rings.qpn();
        this.ring = rings.rq();
        this.ringBase = ring.address();
        this.ringScope = ring.scope();
        this.ringMask = ring.byteSize() - 1;
        this.stride = rings.rqStride();
        this.maxSge = stride / DataSeg.LENGTH;
        this.rq = new RecvRing(rings.rqWqeCnt(), stride);
        this.dbrec = new DoorbellRecord(rings.dbrec());
        this.sgl = new ScatterList(maxSge);
        this.firstAddr = new long[rq.wqeCount()];
        if (Ownership.DEBUG)
        {
            // the close rule (class comment): a close of the QP from another live thread throws and leaves it open
            VERBS.addCloseGuard(qp, resource -> ownership.checkClose(resource));
        }
        VERBS.addStateListener(qp, new StateFollower());
    }

    private RecvQueue(final WorkQueue wq)
    {
        if (wq.isStriding())
        {
            throw new IllegalArgumentException(wq + " is striding: use StridingRecvQueue");
        }
        final WqRing rings = wq.rings();
        this.qp = null;
        this.wq = wq;
        this.qpn = rings.wqn();
        this.ring = rings.buf();
        this.ringBase = ring.address();
        this.ringScope = ring.scope();
        this.ringMask = ring.byteSize() - 1;
        this.stride = rings.stride();
        this.maxSge = stride / DataSeg.LENGTH;
        this.rq = new RecvRing(rings.wqeCnt(), stride);
        this.dbrec = new DoorbellRecord(rings.dbrec());
        this.sgl = new ScatterList(maxSge);
        this.firstAddr = new long[rq.wqeCount()];
        if (Ownership.DEBUG)
        {
            VERBS.addCloseGuard(wq, resource -> ownership.checkClose(resource));
        }
    }

    /**
     * A receive queue over {@code qp}'s RQ ring. One per QP; then confined to the posting thread.
     *
     * @param qp a QP with its own receive queue (no SRQ)
     * @return the queue
     */
    public static RecvQueue of(final QueuePair qp)
    {
        return new RecvQueue(qp);
    }

    /**
     * The receive queue of a plain (not striding) WQ: its CQEs carry the flow tag and the RSS hash, like a raw QP's;
     * the WQ's CQ serves this queue only ({@link CqPoller#attach(RecvQueue)}).
     *
     * @param wq the work queue
     * @return the queue
     */
    public static RecvQueue of(final WorkQueue wq)
    {
        return new RecvQueue(wq);
    }

    /**
     * One receive buffer. Not published until {@link #ring()}. Writes the bytes the staging form writes for one
     * entry (its data segment, then the terminator when the stride has room for one), each segment as two 8-byte
     * stores at the ring's address after one liveness check (see the close rule), without staging: the receive loop
     * of a raw QP reposts a buffer per frame. A zero-length buffer, which libmlx5 drops, and a full ring
     * (the WR stays staged, as documented for {@link #post()}) take the staging form.
     *
     * @param wrId the caller's id, returned in the completion
     * @param addr the buffer's address
     * @param lkey the lkey of the buffer's memory region
     * @param len the buffer's length in bytes
     * @throws IllegalStateException if the QP or WQ is closed
     * @return false if the ring has no room (nothing was written)
     */
    public boolean post(final long wrId, final long addr, final int lkey, final int len)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final long base = liveRing();
        final long at = rq.claim();
        if (len == 0 || maxSge == 0 || at == RecvRing.NO_SPACE)
        {
            return begin(wrId).sge(addr, lkey, len).post();
        }
        final long wqe = base + at;
        DataSeg.put(wqe, len, lkey, addr);
        if (stride > DataSeg.LENGTH)
        {
            DataSeg.putTerminator(wqe + DataSeg.LENGTH);
        }
        firstAddr[rq.headCounter() & (firstAddr.length - 1)] = addr;
        rq.commit(wrId);
        staged = false;
        return true;
    }

    /**
     * The ring's address, for one post's stores through {@link AddressSpace#ALL}, after that post's one liveness check:
     * throws if the QP or WQ is closed (its arena, which scopes the ring, is closed first). What keeps the stores
     * safe is the close rule in the class comment.
     */
    private long liveRing()
    {
        if ((boolean) CLOSE_REQUESTED.getOpaque(this) || !ringScope.isAlive())
        {
            throw new IllegalStateException(this + (ringScope.isAlive()
                ? ": the QP is closing (a close was requested: CqPoller.closeAsync), it takes no more posts"
                : ": the " + (qp != null ? "QP" : "WQ") + " is closed"));
        }
        return ringBase;
    }

    /**
     * Stage a receive WQE with several scatter entries: begin, sge..., post.
     *
     * @param wrId the caller's id, returned in the completion
     * @return this queue
     */
    public RecvQueue begin(final long wrId)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        stWrId = wrId;
        sgl.clear();
        staged = true;
        return this;
    }

    /**
     * One scatter entry; zero-length entries are dropped, as libmlx5 drops them.
     *
     * @param addr the buffer's address
     * @param lkey the lkey of the buffer's memory region
     * @param len the buffer's length in bytes
     * @return this queue
     */
    public RecvQueue sge(final long addr, final int lkey, final int len)
    {
        sgl.add(addr, lkey, len, qp != null ? qp : wq, " receive WQEs hold at most ", " SGEs");
        return this;
    }

    /**
     * Write the staged receive WQE into the ring; posting thread only.
     *
     * @return false if the ring is full (nothing written; the WR stays staged)
     * @throws IllegalStateException if the QP or WQ is closed
     */
    public boolean post()
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        if (!staged)
        {
            throw new IllegalStateException("post() without begin() on " + this);
        }
        liveRing();     // a closed queue throws even when its ring is full
        final long at = rq.claim();
        if (at == RecvRing.NO_SPACE)
        {
            refusedFull++;
            return false;
        }
        final RecvWqeWriter w = writer.wrap(ring, at, stride);
        long first = 0;   // no entry: the terminator comes first, and its address is 0
        for (int i = 0; i < sgl.count; i++)
        {
            if (sgl.len[i] != 0)
            {
                if (w.sges() == 0)
                {
                    first = sgl.addr[i];
                }
                w.data(sgl.len[i], sgl.lkey[i], sgl.addr[i]);
            }
        }
        firstAddr[rq.headCounter() & (firstAddr.length - 1)] = first;
        w.finish();
        rq.commit(stWrId);
        staged = false;
        return true;
    }

    /**
     * Publish every receive WQE posted so far (the doorbell record's receive counter).
     *
     * @return how many WQEs this call published
     */
    public int ring()
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final int head = rq.headCounter();
        final int n = head - published;
        if (n != 0)
        {
            dbrec.recvCounter(head);
            published = head;
        }
        return n;
    }

    /**
     * Follows the QP's doorbell record through the two transitions in which libmlx5 rewrites it
     * ({@link io.mlx5j.verbs.internal.QpStateListener}): RESET restarts the ring at 0, and a raw QP's RTR gets the
     * receives published before it back (libmlx5 wrote its own head, 0, over them). Runs on the thread that changes
     * the QP's state, which the class comment's thread rule orders with this queue's thread.
     */
    private final class StateFollower implements QpStateListener
    {
        @Override
        public void beforeReset(final Object qp)
        {
            final int n = rq.outstanding();
            if (n != 0)
            {
                throw new IllegalStateException(qp + " cannot move to RESET: " + n + " receive WQEs of " +
                    RecvQueue.this + " are outstanding, and libmlx5 does not remove their CQEs from a CQ polled by " +
                    "the Java data path; move the QP to ERR (toError()), poll their flush completions, then reset");
            }
        }

        @Override
        public void afterReset()
        {
            rq.reset();
            published = 0;
            staged = false;
        }

        @Override
        public void afterRtr()
        {
            if (published != 0)
            {
                dbrec.recvCounter(published);
            }
        }

        @Override
        public void closeRequested()
        {
            CLOSE_REQUESTED.setRelease(RecvQueue.this, true);
        }
    }

    /**
     * Receive WQEs posted and not yet completed.
     *
     * @return the count
     */
    public int outstanding()
    {
        return rq.outstanding();
    }

    /** {@return the QP, or null when this is a WQ's queue} */
    public QueuePair queuePair()
    {
        return qp;
    }

    /** {@return the WQ, or null when this is a QP's receive queue} */
    public WorkQueue workQueue()
    {
        return wq;
    }

    /** {@return the QP number, or the WQ number} */
    public int qpn()
    {
        return qpn;
    }

    // ------------------------------------------------------------------------------------------------ CQ side

    /** What {@link CqPoller} attaches: this queue's side of the CQ. */
    OrderedReceive cqSide()
    {
        return cqSide;
    }

    /**
     * This queue's {@link OrderedReceive} contract with the poller. A separate object, so that the methods the poller
     * calls (retiring WQEs, scattering CQE data) are not public methods of this class, which applications call.
     */
    private final class CqSide implements OrderedReceive
    {
        @Override
        public Object queue()
        {
            return RecvQueue.this;
        }


        @Override
        public boolean flowTagged()
        {
            return wq != null || qp.type() == QpType.RAW_PACKET;
        }

        @Override
        public boolean ipCsumValid()
        {
            return qp != null && qp.type() == QpType.RAW_PACKET && (qp.pd().context().queryDevice().deviceCapFlags() &
                io.mlx5j.bindings.IbvDeviceAttr.IBV_DEVICE_RAW_IP_CSUM) != 0;
        }

        @Override
        public boolean dead()
        {
            return qp != null ? qp.isClosed() : wq.isClosed();
        }

        @Override
        public Ownership ownership()
        {
            return ownership;
        }

        @Override
        public void ownership(final Ownership ownership)
        {
            RecvQueue.this.ownership = ownership;
        }

        @Override
        public int tailSlot()
        {
            return rq.tailSlot();
        }

        @Override
        public long frameAddress(final int slot)
        {
            return firstAddr[slot];
        }

        @Override
        public long complete()
        {
            return rq.complete();
        }

        @Override
        public int copyToRecvWqe(final int slot, final MemorySegment src, final long srcOffset, final int size)
        {
            return Scatter.copy(ring, ringMask, (long) slot * stride, maxSge, src, srcOffset, size).code();
        }

        @Override
        public String toString()
        {
            return RecvQueue.this.toString();
        }
    }

    /**
     * Makes the calling thread the owner of this queue's group: this queue, the CqPollers it is attached to, and
     * every queue attached to those.
     * Use it to hand the group to another thread
     * (for example a dedicated poller) after the previous owner has stopped using it; the hand-over itself must be
     * a happens-before edge ({@link Thread#start()}, a concurrent queue, a volatile write and read), because the
     * queues' counters are plain fields. Only {@code -Dmlx5j.debug=true} checks ownership; without it this records
     * the owner and nothing reads it.
     *
     * @return this
     */
    public RecvQueue claim()
    {
        ownership.claim();
        return this;
    }

    @Override
    public String toString()
    {
        return "RecvQueue(" + (wq != null ? "wqn" : "qpn") + " 0x" + Integer.toHexString(qpn) + ")";
    }

    /**
     * Posts this queue refused because its ring was full (the post returned false and wrote nothing): each is a
     * producer that outran the completions. Free-running; counted on the refusing path only, read without
     * allocation. For the thread that posts (another thread may see a stale value).
     *
     * @return the count
     */
    public long refusedFull()
    {
        return refusedFull;
    }
}
