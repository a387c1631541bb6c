// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * Receive ring bookkeeping of a QP's RQ (not an SRQ): free-running head (WQEs posted) and tail (WQEs completed)
 * counters and a wr_id per slot, as libmlx5's {@code struct mlx5_wq} for the RQ. RQ completions arrive in posting
 * order, so the CQE's wqe_counter is not needed: the oldest outstanding slot completes (libmlx5 v44 cq.c does the
 * same with {@code wq->tail}). The receive doorbell record takes {@code head & 0xffff}.
 * <p>
 * <b>Thread confinement:</b> not thread-safe; post and poll on one thread or under the caller's lock.
 */
public final class RecvRing
{
    /** Returned by {@link #claim()} when the ring is full. */
    public static final long NO_SPACE = -1L;

    private final int wqeCnt;
    private final int mask;
    private final int stride;
    private final long[] wrId;
    private int head;
    private int tail;

    /**
     * Creates the bookkeeping of an empty ring. Any thread may construct it.
     *
     * @param wqeCnt number of receive WQEs, a power of two
     * @param stride bytes per receive WQE (mlx5dv_qp.rq.stride), a power of two >= 16
     * @throws IllegalArgumentException if {@code wqeCnt} or {@code stride} is not a power of two, or stride is below 16
     */
    public RecvRing(final int wqeCnt, final int stride)
    {
        if (wqeCnt < 1 || Integer.bitCount(wqeCnt) != 1 || stride < 16 || Integer.bitCount(stride) != 1)
        {
            throw new IllegalArgumentException("wqe_cnt and stride must be powers of two (stride >= 16): " +
                wqeCnt + ", " + stride);
        }
        this.wqeCnt = wqeCnt;
        this.mask = wqeCnt - 1;
        this.stride = stride;
        this.wrId = new long[wqeCnt];
    }

    /**
     * Room check for the next receive WQE; posting thread.
     *
     * @return byte offset of the next free WQE, or {@link #NO_SPACE}
     */
    public long claim()
    {
        if (head - tail >= wqeCnt)
        {
            return NO_SPACE;
        }
        return (long)(head & mask) * stride;
    }

    /**
     * Records the wr_id of the claimed WQE and advances the head; posting thread.
     *
     * @param wrId the caller's work request id, returned by {@link #complete()}
     * @return the new head counter (doorbell record value = head &amp; 0xffff)
     * @throws IllegalStateException if the ring is full
     * @throws IllegalStateException if the ring is full
     */
    public int commit(final long wrId)
    {
        if (head - tail >= wqeCnt)
        {
            throw new IllegalStateException("receive ring of " + wqeCnt + " WQEs is full");
        }
        this.wrId[head & mask] = wrId;
        return ++head;
    }

    /**
     * Retire the oldest outstanding receive WQE.
     *
     * @return its wr_id
     * @throws IllegalStateException if nothing is outstanding (a CQE for a WQE never posted)
     */
    public long complete()
    {
        if (head == tail)
        {
            throw new IllegalStateException("receive completion with no outstanding receive WQE");
        }
        return wrId[tail++ & mask];
    }

    /**
     * Back to the state of a new ring, as libmlx5's mlx5_init_qp_indices when its QP moves to RESET. Only with
     * nothing outstanding (a receive still posted would complete against counters that no longer know it).
     *
     * @throws IllegalStateException if receive WQEs are outstanding
     */
    public void reset()
    {
        if (head != tail)
        {
            throw new IllegalStateException((head - tail) +
                " receive WQEs are outstanding: the ring cannot restart at 0");
        }
        head = 0;
        tail = 0;
    }

    /**
     * Slot index of the oldest outstanding WQE (where scatter-to-CQE data of its completion belongs).
     *
     * @return the slot index
     */
    public int tailSlot()
    {
        return tail & mask;
    }

    /** {@return the free-running head counter (WQEs posted)} */
    public int headCounter()
    {
        return head;
    }

    /** {@return WQEs posted and not yet completed} */
    public int outstanding()
    {
        return head - tail;
    }

    /**
     * Slots in the ring (a power of two).
     *
     * @return the slot count
     */
    public int wqeCount()
    {
        return wqeCnt;
    }

    /** {@return bytes per receive WQE} */
    public int stride()
    {
        return stride;
    }
}
