// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.SharedReceive;
import io.mlx5j.direct.internal.SrqFreeList;
import io.mlx5j.direct.internal.Scatter;
import io.mlx5j.direct.internal.ScatterList;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.verbs.SrqRing;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.RecvWqeWriter;
import io.mlx5j.wqe.SrqNextSeg;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A shared receive queue posted from Java, with the free-list discipline and bytes of the libmlx5 this process runs
 * (rdma-core providers/mlx5/srq.c mlx5_post_srq_recv, mlx5_free_srq_wqe): WQEs are taken at the list's head and the
 * next head is read from the taken WQE's next_wqe_index. A completed WQE goes back to the list at once (libmlx5 44 to
 * 47) or, from libmlx5 48 on, is marked and linked by the next post that finds the list empty; each queue picks the
 * running release's way when it is made (see {@code io.mlx5j.direct.internal.SrqFreeList}), so its ring matches a
 * ring libmlx5 posted byte for byte under either. The scatter list follows the 16-byte next segment, every SGE is
 * written (also empty ones, as libmlx5), and a terminator follows if fewer than max_sge entries were used. The
 * doorbell record holds the 16-bit count of WQEs ever posted.
 * A CQE names its SRQ WQE by wqe_counter, so completions may arrive in any order.
 * <p>
 * Confined to one thread, which also polls the CQs the SRQ's QPs complete on ({@code -Dmlx5j.debug=true} checks).
 */
public final class SrqRecvQueue
{
    /** The poller's view of this queue (see {@link CqSide}). */
    private final SharedReceive cqSide = new CqSide();
    /** Posts refused because the ring was full; counted on that path only ({@link #refusedFull()}). */
    private long refusedFull;
    private final SharedReceiveQueue srq;
    private final int srqn;
    /** An XRC SRQ's CQE index (SharedReceiveQueue.cqeIndex), else -1. */
    private final int xrcCqeIndex;
    private final MemorySegment buf;
    private final int stride;
    private final int wqeCnt;
    private final int maxSge;
    private final DoorbellRecord dbrec;
    private final RecvWqeWriter writer = new RecvWqeWriter();
    private final long[] wrId;
    private final boolean[] busy;
    /** Which WQE the next post takes, and where a completed one goes. */
    private final SrqFreeList freeList;
    private int counter;
    private int published;
    private int outstanding;
    Ownership ownership = new Ownership(this);
    /**
     * Set by a thread that requests the SRQ's close ({@link CqPoller#closeAsync(SrqRecvQueue)}), read by
     * {@link #begin} with an opaque load: the posting thread refuses posts from then on.
     */
    private boolean closeRequested;
    private static final VarHandle CLOSE_REQUESTED;

    static
    {
        try
        {
            CLOSE_REQUESTED = MethodHandles.lookup().findVarHandle(SrqRecvQueue.class, "closeRequested",
                boolean.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long stWrId;
    private boolean staged;
    /** Entries of the WR being staged. */
    private final ScatterList sgl;

    private SrqRecvQueue(final SharedReceiveQueue srq)
    {
        final SrqRing r = srq.ring();
        this.srq = srq;
        this.srqn = r.srqn();
        this.xrcCqeIndex = srq.isXrc() ? srq.cqeIndex() : -1;
        this.buf = r.buf();
        this.stride = r.stride();
        this.wqeCnt = r.tail() + 1;
        this.freeList = SrqFreeList.forRunningLibrary(r.buf(), stride, wqeCnt, r.head(), r.tail());
        this.maxSge = Math.min(srq.maxSge(), (stride - SrqNextSeg.LENGTH) / DataSeg.LENGTH);
        this.dbrec = new DoorbellRecord(r.dbrec());
        this.wrId = new long[wqeCnt];
        this.busy = new boolean[wqeCnt];
        this.sgl = new ScatterList(maxSge);
    }

    /**
     * A queue over {@code srq}'s ring. One per SRQ, made on a fresh SRQ (nothing posted through libmlx5); then
     * confined to the posting thread. Its free list follows the libmlx5 release mapped into the process, which the
     * first queue reads from /proc/self/maps.
     *
     * @param srq the SRQ
     * @return the queue
     * @throws java.io.UncheckedIOException if /proc/self/maps cannot be read
     */
    public static SrqRecvQueue of(final SharedReceiveQueue srq)
    {
        return new SrqRecvQueue(srq);
    }

    /**
     * One receive buffer. Not published until {@link #ring()}.
     *
     * @param wrId the caller's id, returned in the completion
     * @param addr the buffer's address
     * @param lkey the lkey of the buffer's memory region
     * @param len the buffer's length in bytes
     * @return false if the ring has no room (nothing was written)
     * @throws IllegalStateException if the SRQ's close was requested ({@link CqPoller#closeAsync(SrqRecvQueue)})
     */
    public boolean post(final long wrId, final long addr, final int lkey, final int len)
    {
        return begin(wrId).sge(addr, lkey, len).post();
    }

    /**
     * Stage a receive WQE with several scatter entries: begin, sge..., post.
     *
     * @param wrId the caller's id, returned in the completion
     * @return this queue
     * @throws IllegalStateException if the SRQ's close was requested ({@link CqPoller#closeAsync(SrqRecvQueue)})
     */
    public SrqRecvQueue begin(final long wrId)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        if ((boolean) CLOSE_REQUESTED.getOpaque(this))
        {
            throw new IllegalStateException(this + ": the SRQ is closing (a close was requested: "
                + "CqPoller.closeAsync), it takes no more posts");
        }
        stWrId = wrId;
        sgl.clear();
        staged = true;
        return this;
    }

    /**
     * One scatter entry of the staged WQE.
     *
     * @param addr the buffer's address
     * @param lkey the lkey of the buffer's memory region
     * @param len the buffer's length in bytes
     * @return this queue
     */
    public SrqRecvQueue sge(final long addr, final int lkey, final int len)
    {
        sgl.add(addr, lkey, len, srq, " WQEs hold at most ", " SGEs");
        return this;
    }

    /**
     * Write the staged receive WQE into the ring; posting thread only.
     *
     * @return false if the SRQ has no free WQE (as libmlx5: one WQE always stays in the list)
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
        final int slot = freeList.take();
        if (slot < 0)
        {
            refusedFull++;
            return false;
        }
        final long at = (long) slot * stride;
        wrId[slot] = stWrId;
        busy[slot] = true;
        // the next segment stays as the free list left it: only the scatter list is written
        final RecvWqeWriter w = writer.wrap(buf, at + SrqNextSeg.LENGTH, stride - SrqNextSeg.LENGTH);
        for (int i = 0; i < sgl.count; i++)
        {
            w.data(sgl.len[i], sgl.lkey[i], sgl.addr[i]);
        }
        if (sgl.count < maxSge)
        {
            w.finish();
        }
        counter++;
        outstanding++;
        staged = false;
        return true;
    }

    /**
     * Publish every WQE posted so far: dbrec = counter (16 bits). @return how many this call published
     *
     * @return how many WQEs this call published
     */
    public int ring()
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final int n = (counter - published) & 0xffff;
        if (n != 0)
        {
            dbrec.recvCounter(counter);
            published = counter;
        }
        return n;
    }

    /** {@return WQEs posted and not yet completed} */
    public int outstanding()
    {
        return outstanding;
    }

    /** {@return the SRQ this queue posts to} */
    public SharedReceiveQueue srq()
    {
        return srq;
    }

    /** A close of the SRQ was requested: posts are refused from now on (any thread; a release store). */
    void closeRequested()
    {
        CLOSE_REQUESTED.setRelease(this, true);
    }

    /**
     * The first WQE slot from {@code from} on that is posted and not completed, or -1: what an {@link SrqClose} hands
     * back after the destroy. Owner thread.
     */
    int nextOutstanding(final int from)
    {
        for (int i = Math.max(0, from); i < wqeCnt; i++)
        {
            if (busy[i])
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * The WQE at {@code slot} is given back without a CQE, the SRQ being destroyed: no longer outstanding; its ring is
     * not touched (it is freed). Owner thread. @return its wr_id
     */
    long flushed(final int slot)
    {
        busy[slot] = false;
        outstanding--;
        return wrId[slot];
    }

    /** The CQE index an XRC SRQ's completions carry in srqn_uidx, -1 for a plain SRQ (any thread: final). */
    int xrcCqeIndex()
    {
        return xrcCqeIndex;
    }

    /** {@return the SRQ number} */
    public int srqn()
    {
        return srqn;
    }

    /** {@return the SRQ this queue posts to} */
    public SharedReceiveQueue sharedReceiveQueue()
    {
        return srq;
    }

    // ------------------------------------------------------------------------------------------------ CQ side

    /** What {@link CqPoller} attaches: this queue's side of the CQ. */
    SharedReceive cqSide()
    {
        return cqSide;
    }

    /**
     * This queue's {@link SharedReceive} contract with the poller. A separate object, so that the methods the poller
     * calls (retiring WQEs, scattering CQE data) are not public methods of this class, which applications call.
     */
    private final class CqSide implements SharedReceive
    {
        @Override
        public Object queue()
        {
            return SrqRecvQueue.this;
        }


        @Override
        public boolean dead()
        {
            return srq.isClosed();
        }

        @Override
        public Ownership ownership()
        {
            return ownership;
        }

        @Override
        public void ownership(final Ownership ownership)
        {
            SrqRecvQueue.this.ownership = ownership;
        }

        @Override
        public long complete(final int wqeCounter)
        {
            if (wqeCounter < 0 || wqeCounter >= wqeCnt || !busy[wqeCounter])
            {
                throw new IllegalStateException("SRQ CQE names WQE " + wqeCounter + " of " + this +
                    ", which is not outstanding");
            }
            return free(wqeCounter);
        }

        @Override
        public boolean reclaim(final int wqeCounter)
        {
            if (wqeCounter < 0 || wqeCounter >= wqeCnt || !busy[wqeCounter] || srq.isClosed())
            {
                return false;
            }
            free(wqeCounter);
            return true;
        }

        /** Gives the WQE at {@code wqeCounter} back to the free list; returns its wr_id. */
        private long free(final int wqeCounter)
        {
            busy[wqeCounter] = false;
            outstanding--;
            freeList.release(wqeCounter);
            return wrId[wqeCounter];
        }

        @Override
        public int copyToRecvSrq(final int wqeCounter, final MemorySegment src, final long srcOffset, final int size)
        {
            return Scatter.copy(buf, -1L, (long) wqeCounter * stride + SrqNextSeg.LENGTH,
                (stride - SrqNextSeg.LENGTH) / DataSeg.LENGTH, src, srcOffset, size).code();
        }

        @Override
        public String toString()
        {
            return SrqRecvQueue.this.toString();
        }
    }

    /**
     * Makes the calling thread the owner of this queue's group: this SRQ, the CqPollers it is attached to, and every
     * queue attached to those.
     * Use it to hand the group to another thread
     * (for example a dedicated poller) after the previous owner has stopped using it; the hand-over itself must be
     * a happens-before edge ({@link Thread#start()}, a concurrent queue, a volatile write and read), because the
     * queues' counters are plain fields. Only {@code -Dmlx5j.debug=true} checks ownership; without it this records
     * the owner and nothing reads it.
     *
     * @return this
     */
    public SrqRecvQueue claim()
    {
        ownership.claim();
        return this;
    }

    @Override
    public String toString()
    {
        return "SrqRecvQueue(srqn 0x" + Integer.toHexString(srqn) + ")";
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
