// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * Send ring bookkeeping: counters only, never bytes (those are {@link WqeWriter}'s). Mirrors libmlx5's
 * {@code struct mlx5_wq} (rdma-core v44 providers/mlx5/mlx5.h): free-running counters masked with
 * {@code wqe_cnt - 1}.
 * <ul>
 * <li>{@code pi} (producer counter): WQEBBs ever posted. Its low 16 bits are the next WQE's wqe_index and the value
 *     of the send doorbell record.</li>
 * <li>{@code ci} (consumer counter): WQEBBs the device has retired, advanced by completions.</li>
 * </ul>
 * Per slot of a WQE's first WQEBB the queue keeps the caller's wr_id, the producer counter at post time (the WQE
 * head) and the counter just past the WQE, in primitive arrays. A requester CQE reports the wqe_counter of the
 * WQE's first WQEBB; send completions are in order, so completing a signaled WQE also retires every unsignaled WQE
 * posted before it.
 * <p>
 * Typical post: {@code ctrl = claim(n)} (returns {@link #NO_SPACE} when full: no exception on the hot path), write
 * the WQE with {@link WqeWriter#wrap}{@code (ring, ctrl)...ctrl(.., wqeIndex(), ..)}, then
 * {@link #commit}{@code (writer.ds(), wrId)}. The doorbell then needs {@link #producerCounter()},
 * {@link #lastCtrlOffset()}, {@link #lastDs()} / {@link #lastNumWqebb()} plus the ring segment.
 * <p>
 * <b>Thread confinement:</b> not thread-safe. Posting and completion processing must happen on one thread (or under
 * one lock held by the caller), as with libmlx5's per-QP lock.
 */
public final class SendRing
{
    /** Send WQE basic block size in bytes (MLX5_SEND_WQE_BB). */
    public static final int MLX5_SEND_WQE_BB = 64;
    /** log2 of {@link #MLX5_SEND_WQE_BB} (MLX5_SEND_WQE_SHIFT). */
    public static final int MLX5_SEND_WQE_SHIFT = 6;
    /** Returned by {@link #claim} when the ring has no room. */
    public static final long NO_SPACE = -1L;

    private final int wqeCnt;
    private final int mask;
    private final long[] wrId;
    private final int[] headPi;
    private final int[] nextPi;
    private int pi;
    private int ci;
    private long lastCtrl;
    private int lastNumWqebb;
    private int lastDs;

    /**
     * Creates the bookkeeping of an empty ring. Any thread may construct it; then it belongs to the posting thread.
     *
     * @param wqeCnt ring size in WQEBBs: a power of two, at most 65536 (wqe_index is 16 bits).
     * @throws IllegalArgumentException if {@code wqeCnt} is not a power of two in [1, 65536]
     */
    public SendRing(final int wqeCnt)
    {
        if (wqeCnt < 1 || wqeCnt > 65536 || Integer.bitCount(wqeCnt) != 1)
        {
            throw new IllegalArgumentException("wqe_cnt must be a power of two in [1, 65536]: " + wqeCnt);
        }
        this.wqeCnt = wqeCnt;
        this.mask = wqeCnt - 1;
        this.wrId = new long[wqeCnt];
        this.headPi = new int[wqeCnt];
        this.nextPi = new int[wqeCnt];
        this.lastCtrl = NO_SPACE;
    }

    /**
     * WQEBBs needed by a WQE of {@code ds} 16-byte units.
     *
     * @param ds the WQE size in 16-byte units
     * @return {@code ceil(ds / 4)}
     */
    public static int numWqebb(final int ds)
    {
        return (ds + 3) >>> 2;
    }

    /**
     * Room check for the next WQE.
     *
     * @param numWqebb WQEBBs the WQE needs
     * @return byte offset of its first WQEBB in the ring, or {@link #NO_SPACE} if fewer than {@code numWqebb}
     *         WQEBBs are free
     * @throws IllegalArgumentException if {@code numWqebb} is below 1 or larger than the ring
     */
    public long claim(final int numWqebb)
    {
        if (numWqebb < 1 || numWqebb > wqeCnt)
        {
            throw tooLarge(numWqebb);
        }
        if (pi - ci + numWqebb > wqeCnt)
        {
            return NO_SPACE;
        }
        return (long)(pi & mask) << MLX5_SEND_WQE_SHIFT;
    }

    /** {@return wqe_index of the next WQE: low 16 bits of the producer counter} */
    public int wqeIndex()
    {
        return pi & 0xffff;
    }

    /**
     * Account for a WQE just written at {@code claim()}'s offset.
     *
     * @param ds   the WQE's size in 16-byte units, as written in its ctrl segment ({@link WqeWriter#ds()}); the
     *             producer counter advances by {@code numWqebb(ds)}
     * @param wrId returned by {@link #complete} when this WQE (or a later one) completes
     * @return the new producer counter
     * @throws IllegalStateException if the WQE does not fit (the caller claimed less than it wrote)
     */
    public int commit(final int ds, final long wrId)
    {
        final int numWqebb = numWqebb(ds);
        if (ds < 1 || ds > CtrlSeg.MAX_DS || pi - ci + numWqebb > wqeCnt)
        {
            throw overflow(ds);
        }
        final int slot = pi & mask;
        this.wrId[slot] = wrId;
        headPi[slot] = pi;
        nextPi[slot] = pi + numWqebb;
        lastCtrl = (long)slot << MLX5_SEND_WQE_SHIFT;
        lastNumWqebb = numWqebb;
        lastDs = ds;
        pi += numWqebb;
        return pi;
    }

    /**
     * Retire everything up to and including the WQE whose first WQEBB has {@code wqeCounter} (the CQE's
     * wqe_counter).
     *
     * @param wqeCounter the CQE's wqe_counter
     * @return that WQE's wr_id
     * @throws IllegalStateException if no outstanding WQE starts at wqeCounter (a corrupt or duplicate CQE)
     */
    public long complete(final int wqeCounter)
    {
        final int slot = wqeCounter & mask;
        final int head = headPi[slot];
        if ((head & 0xffff) != (wqeCounter & 0xffff) || head - ci < 0 || head - ci >= pi - ci)
        {
            throw unknownWqe(wqeCounter);
        }
        ci = nextPi[slot];
        return wrId[slot];
    }

    // The exceptions are built out of line: it keeps claim, commit and complete small enough for the JIT to inline
    // them into every post and poll.

    private IllegalArgumentException tooLarge(final int numWqebb)
    {
        return new IllegalArgumentException("WQE of " + numWqebb + " WQEBBs cannot fit a ring of " + wqeCnt);
    }

    private IllegalStateException overflow(final int ds)
    {
        return new IllegalStateException("commit of a WQE of " + ds + " ds overflows the ring: " + (pi - ci) + " of " +
            wqeCnt + " WQEBBs in use");
    }

    private IllegalStateException unknownWqe(final int wqeCounter)
    {
        return new IllegalStateException("wqe_counter " + (wqeCounter & 0xffff) + " names no outstanding WQE (ci="
            + ci + ", pi=" + pi + ")");
    }

    /**
     * Back to the state of a new ring, as libmlx5's mlx5_init_qp_indices when its QP moves to RESET (the device
     * restarts its wqe_counter at 0 there). Only with nothing outstanding: a WQE still in flight would complete
     * against counters that no longer know it.
     *
     * @throws IllegalStateException if WQEBBs are outstanding
     */
    public void reset()
    {
        if (pi != ci)
        {
            throw new IllegalStateException((pi - ci) + " WQEBBs are outstanding: the ring cannot restart at 0");
        }
        pi = 0;
        ci = 0;
        lastCtrl = NO_SPACE;
        lastNumWqebb = 0;
        lastDs = 0;
    }

    /** {@return free-running producer counter; the doorbell record takes its low 16 bits} */
    public int producerCounter()
    {
        return pi;
    }

    /** {@return free-running consumer counter} */
    public int consumerCounter()
    {
        return ci;
    }

    /**
     * Byte offset in the ring of the ctrl segment of the most recently committed WQE, or NO_SPACE if none.
     *
     * @return the offset, or {@link #NO_SPACE}
     */
    public long lastCtrlOffset()
    {
        return lastCtrl;
    }

    /**
     * WQEBBs of the most recently committed WQE (BlueFlame copies this many 64-byte blocks).
     *
     * @return the number of WQEBBs
     */
    public int lastNumWqebb()
    {
        return lastNumWqebb;
    }

    /** {@return ds of the most recently committed WQE (libmlx5 decides BlueFlame use and copy length from it)} */
    public int lastDs()
    {
        return lastDs;
    }

    /**
     * WQEBBs posted and not yet retired.
     *
     * @return the number of WQEBBs
     */
    public int outstanding()
    {
        return pi - ci;
    }

    /** {@return WQEBBs free for new WQEs} */
    public int freeWqebb()
    {
        return wqeCnt - (pi - ci);
    }

    /** {@return the ring size in WQEBBs} */
    public int wqeCnt()
    {
        return wqeCnt;
    }

    /**
     * Ring byte size this queue expects: wqe_cnt * 64.
     *
     * @return the ring size in bytes
     */
    public long ringBytes()
    {
        return (long)wqeCnt << MLX5_SEND_WQE_SHIFT;
    }
}
