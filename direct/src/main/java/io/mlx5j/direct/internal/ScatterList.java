// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

/**
 * The scatter/gather entries of the one work request a queue is staging ({@code begin ... sge ... post}): three
 * primitive arrays reused for every post, so staging allocates nothing. A queue owns one and shares its thread
 * confinement. Which entries reach the WQE (zero-length ones are dropped on send and RQ, kept on SRQ, as libmlx5
 * does) is the queue's business; this class only collects them.
 */
public final class ScatterList
{
    /** Entries one WQE of the owning queue can hold. */
    public final int max;
    /** Addresses of the staged entries. */
    public final long[] addr;
    /** Lkeys of the staged entries. */
    public final int[] lkey;
    /** Lengths of the staged entries. */
    public final int[] len;
    /** Entries staged since the last {@link #clear()}. */
    public int count;

    /**
     * A list of at most {@code max} entries; confined to the posting thread.
     *
     * @param max the most entries per WQE
     */
    public ScatterList(final int max)
    {
        this.max = max;
        final int slots = Math.max(1, max);   // a queue with no SGEs still stages (NOP, inline-only) without a branch
        this.addr = new long[slots];
        this.lkey = new int[slots];
        this.len = new int[slots];
    }

    /** Drops the staged entries. */
    public void clear()
    {
        count = 0;
    }

    /**
     * Stage one entry, or refuse it when the WQE is full with the message {@code owner + before + max + after}
     * (e.g. "QP 0x12 takes at most 4 SGEs per WQE"), which is built only then.
     *
     * @param address the entry's address
     * @param key the entry's lkey
     * @param length the entry's length
     * @param owner the queue, for the message
     * @param before message text before the limit
     * @param after message text after the limit
     * @throws IllegalArgumentException if the list is full
     */
    public void add(final long address, final int key, final int length, final Object owner, final String before,
        final String after)
    {
        if (count == max)
        {
            throw new IllegalArgumentException(owner + before + max + after);
        }
        addr[count] = address;
        lkey[count] = key;
        len[count] = length;
        count++;
    }
}
