// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.QueueBridge;
import io.mlx5j.direct.internal.StridingReceive;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.memory.Be;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.verbs.WqRing;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.SrqNextSeg;

import java.lang.foreign.MemorySegment;

/**
 * The receive queue of a striding {@link WorkQueue} (multi-packet RQ), posted from Java. A WQE is
 * {@code struct mlx5_mprq_wqe} (mlx5dv.h, rdma-core 44): a 16-byte next segment, left zero on a cyclic WQ, then one
 * data segment whose buffer is the WQE's 2^logNumStrides strides of 2^logStrideBytes bytes (DPDK
 * drivers/net/mlx5 mlx5_rxq.c mlx5_rxq_initialize and mlx5_rx.c mprq_buf_replace write it the same way; libmlx5's
 * own ibv_post_wq_recv does not build it). {@link #ring()} publishes the WQE counter in the doorbell record's
 * receive word, as for any RQ.
 * <p>
 * The NIC packs frames into a WQE's buffer, each from the start of a stride (2 bytes into it with the two-byte
 * shift), and completes each frame with a CQE naming its first stride and the strides it used; a frame that does not
 * fit in the strides left gets a filler CQE for them and goes to the next WQE. {@link CqPoller} decodes those CQEs
 * (DPDK mlx5_rx.c mlx5_rx_burst_mprq reads the same fields): a frame is {@link Completion#frameAddress()} into the
 * buffer, fillers are consumed without being reported, and a WQE is released when all its strides are consumed.
 * A released WQE is posted again at once with the same buffer when the queue was made {@code recycling} (the NIC
 * writes into that buffer again only after it has filled every other posted WQE, so a frame stays readable in place
 * until then); otherwise {@link Completion#releasedWqes()} reports it and the caller posts a new one.
 * <p>
 * Confined to one thread, which also polls the WQ's CQ ({@code -Dmlx5j.debug=true} checks). Allocation-free.
 */
public final class StridingRecvQueue
{
    /** Posts refused because the ring was full; counted on that path only ({@link #refusedFull()}). */
    private long refusedFull;
    private static final int NEXT_SEG_BYTES = 16;

    static
    {
        QueueBridge.stridingSides(queue -> ((StridingRecvQueue) queue).cqSide);
    }

    /** The poller's view of this queue (see {@link CqSide}). */
    private final StridingReceive cqSide = new CqSide();

    private final WorkQueue wq;
    private final int wqn;
    private final MemorySegment ring;
    private final int wqeCnt;
    private final int mask;
    private final int wqeBytes;
    private final int strideBytes;
    private final int numStrides;
    private final int shift;
    private final boolean recycle;
    private final DoorbellRecord dbrec;
    private final long[] wrId;
    private final long[] addr;
    private final int[] lkey;
    private int head;
    private int tail;
    private int published;
    /** Strides of the oldest outstanding WQE consumed so far. */
    private int consumed;
    private Ownership ownership = new Ownership(this);

    private StridingRecvQueue(final WorkQueue wq, final boolean recycle)
    {
        if (!wq.isStriding())
        {
            throw new IllegalArgumentException(wq + " is not striding: use RecvQueue");
        }
        final WqRing rings = wq.rings();
        this.wq = wq;
        this.wqn = rings.wqn();
        this.ring = rings.buf();
        this.wqeCnt = rings.wqeCnt();
        this.mask = wqeCnt - 1;
        this.wqeBytes = rings.stride();
        this.strideBytes = 1 << wq.logStrideBytes();
        this.numStrides = 1 << wq.logNumStrides();
        this.shift = wq.twoByteShift() ? 2 : 0;
        this.recycle = recycle;
        this.dbrec = new DoorbellRecord(rings.dbrec());
        this.wrId = new long[wqeCnt];
        this.addr = new long[wqeCnt];
        this.lkey = new int[wqeCnt];
        if (wqeBytes < NEXT_SEG_BYTES + DataSeg.LENGTH)
        {
            throw new IllegalStateException(wq + ": a " + wqeBytes + "-byte WQE cannot hold struct mlx5_mprq_wqe");
        }
    }

    /**
     * A receive queue over a striding WQ's ring; one per WQ, confined to the thread that posts to it and polls its
     * CQ.
     *
     * @param wq      a striding WQ ({@link WorkQueue#isStriding()})
     * @param recycle post each WQE again, with the same buffer and wr_id, as soon as all its strides are consumed
     * @return the queue, nothing posted
     * @throws IllegalArgumentException if {@code wq} is not striding
     * @throws IllegalStateException if the WQ's WQE size cannot hold {@code struct mlx5_mprq_wqe}
     */
    public static StridingRecvQueue of(final WorkQueue wq, final boolean recycle)
    {
        return new StridingRecvQueue(wq, recycle);
    }

    /**
     * Bytes one WQE's buffer must have: strides times stride size.
     *
     * @return bytes, {@link #numStrides()} * {@link #strideBytes()}
     */
    public int bufferBytes()
    {
        return numStrides * strideBytes;
    }

    /**
     * The size of one stride; each frame starts at a stride boundary (plus 2 with the two-byte shift).
     *
     * @return bytes, 2^logStrideBytes of the WQ
     */
    public int strideBytes()
    {
        return strideBytes;
    }

    /**
     * Strides per WQE buffer.
     *
     * @return 2^logNumStrides of the WQ
     */
    public int numStrides()
    {
        return numStrides;
    }

    /**
     * One WQE whose buffer is {@link #bufferBytes()} bytes at {@code address} (registered with {@code lkey}). Not
     * published until {@link #ring()}.
     *
     * @param wrId    reported with every frame of this WQE ({@link Completion#wrId()})
     * @param address the buffer's first byte
     * @param lkey    the buffer's memory region lkey
     * @return false if all WQEs are outstanding (nothing written)
     */
    public boolean post(final long wrId, final long address, final int lkey)
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        if (head - tail == wqeCnt)
        {
            refusedFull++;
            return false;
        }
        write(head & mask, wrId, address, lkey);
        head++;
        return true;
    }

    private void write(final int slot, final long id, final long address, final int key)
    {
        final long at = (long) slot * wqeBytes;
        // next segment (unused on a cyclic WQ), the data segment, and zero for any further data segments
        SrqNextSeg.set(ring, at, 0);
        DataSeg.set(ring, at + NEXT_SEG_BYTES, numStrides * strideBytes, key, address);
        for (long o = NEXT_SEG_BYTES + DataSeg.LENGTH; o < wqeBytes; o += 8)
        {
            Be.BE64.set(ring, at + o, 0L);
        }
        wrId[slot] = id;
        addr[slot] = address;
        lkey[slot] = key;
    }

    /**
     * Publish every WQE posted so far (the doorbell record's receive counter).
     *
     * @return how many WQEs this call published
     */
    public int ring()
    {
        if (Ownership.DEBUG)
        {
            ownership.check(this);
        }
        final int n = head - published;
        if (n != 0)
        {
            dbrec.recvCounter(head);
            published = head;
        }
        return n;
    }

    /**
     * WQEs posted and not yet released.
     *
     * @return WQEs, 0..the WQ's WQE count
     */
    public int outstanding()
    {
        return head - tail;
    }

    /**
     * The WQ this queue posts to.
     *
     * @return the striding WQ
     */
    public WorkQueue workQueue()
    {
        return wq;
    }

    /**
     * The WQ's number, which the CQEs of its frames carry.
     *
     * @return the 24-bit WQN
     */
    public int wqn()
    {
        return wqn;
    }

    // ------------------------------------------------------------------------------------------------ CQ side

    /**
     * This queue's {@link StridingReceive} contract with the poller. A separate object, so that the methods the poller
     * calls (retiring WQEs, scattering CQE data) are not public methods of this class, which applications call.
     */
    private final class CqSide implements StridingReceive
    {
        @Override
        public Object queue()
        {
            return StridingRecvQueue.this;
        }


        @Override
        public boolean dead()
        {
            return wq.isClosed();
        }

        @Override
        public Ownership ownership()
        {
            return ownership;
        }

        @Override
        public void ownership(final Ownership ownership)
        {
            StridingRecvQueue.this.ownership = ownership;
        }

        @Override
        public long tailWrId()
        {
            return wrId[tail & mask];
        }

        @Override
        public long frameAddress(final int strideIndex)
        {
            return addr[tail & mask] + (long) strideIndex * strideBytes + shift;
        }

        /**
         * {@inheritDoc}
         *
         * @throws IllegalStateException if the CQE does not continue where the last one ended (a corrupt CQ), or names
         *                               no outstanding WQE
         */
        @Override
        public int consume(final int strideIndex, final int strides)
        {
            if (head == tail || strideIndex != consumed || strides < 1 || consumed + strides > numStrides)
            {
                throw new IllegalStateException(this + ": a CQE for strides " + strideIndex + ".." +
                    (strideIndex + strides - 1) + " of WQE " + tail + ", where " + consumed + " of " + numStrides +
                    " strides are consumed and " + (head - tail) + " WQEs outstanding: the CQ is corrupt");
            }
            consumed += strides;
            if (consumed < numStrides)
            {
                return 0;
            }
            release();
            return 1;
        }

        @Override
        public void releaseOldest()
        {
            if (head == tail)
            {
                throw new IllegalStateException(this + ": an error CQE with no WQE outstanding: the CQ is corrupt");
            }
            release();
        }

        private void release()
        {
            final int slot = tail & mask;
            tail++;
            consumed = 0;
            if (recycle)
            {
                final int to = head & mask;
                if (to != slot)
                {
                    write(to, wrId[slot], addr[slot], lkey[slot]);
                }
                head++;
                dbrec.recvCounter(head);
                published = head;
            }
        }

        @Override
        public String toString()
        {
            return StridingRecvQueue.this.toString();
        }
    }

    /**
     * Makes the calling thread the owner of this queue's group (see {@link CqPoller#claim()}).
     *
     * @return this
     */
    public StridingRecvQueue claim()
    {
        ownership.claim();
        return this;
    }

    @Override
    public String toString()
    {
        return "StridingRecvQueue(wqn 0x" + Integer.toHexString(wqn) + ")";
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
