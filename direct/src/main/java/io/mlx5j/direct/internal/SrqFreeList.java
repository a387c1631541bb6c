// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.memory.Be;
import io.mlx5j.wqe.SrqNextSeg;

import java.lang.foreign.MemorySegment;

/**
 * The list of free WQEs of a shared receive queue, linked through each WQE's next_wqe_index, kept the way the running
 * libmlx5 keeps it, so that a ring posted from Java holds the same bytes as one libmlx5 posted. The device takes WQEs
 * from the head by following next_wqe_index; libmlx5 keeps one WQE (the tail) in the list, so {@code head == tail}
 * means "nothing to take" until a freed WQE is linked after the tail. Where the releases differ is when a completed WQE
 * is linked (rdma-core providers/mlx5/srq.c):
 * <ul>
 * <li>up to release 47, at the completion ({@code mlx5_free_srq_wqe} links it after the tail): the list is in
 *     completion order;</li>
 * <li>from release 48 on (commit 4827e3388, "mlx5: Enhance SRQ performance", identical through 65), the completion
 *     only sets the WQE's bit in a bitmap, and a post that finds {@code head == tail} links more: the WQE after the
 *     tail in ring order if its bit is set ({@code set_next_tail}), else the first run of set bits above the head,
 *     else the first run below it, renumbered so that each WQE of the run points at the next
 *     ({@code set_next_contig_wqes}).</li>
 * </ul>
 * Both lists are valid for the device. Which one a queue keeps is decided once, at construction
 * ({@link #forRunningLibrary}); the hot path tests that final field and allocates nothing. libmlx5's wait queue (the
 * extra WQEs after {@code tail + 1}, used only on an ODP page fault) is not touched: mlx5dv reports only the free list.
 *
 * <p>Thread model: confined to the thread that posts to the SRQ and polls the CQs its QPs complete on (the owner of
 * the {@code SrqRecvQueue} that holds it).
 */
public final class SrqFreeList
{
    /** The first rdma-core release whose libmlx5 links freed SRQ WQEs at the next post (v48.0, commit 4827e3388). */
    public static final int FIRST_RELEASE_LINKING_AT_POST = 48;

    private final MemorySegment buf;
    private final int stride;
    /** WQEs in the free list's range: libmlx5's nwqes, mlx5dv's tail + 1. */
    private final int wqes;
    /** Release 48 and later: completions set a bit, posts link. Else completions link. */
    private final boolean linkAtPost;
    /** Completed WQEs not linked yet, one bit each (libmlx5's free_wqe_bitmap); empty unless {@link #linkAtPost}. */
    private final long[] freed;
    private int head;
    private int tail;

    /**
     * A free list over {@code buf} as libmlx5 left it after creating the SRQ.
     *
     * @param buf the SRQ's WQEs, at least {@code wqes * stride} bytes
     * @param stride bytes per WQE
     * @param wqes WQEs in the free list's range (mlx5dv's tail + 1)
     * @param head the first WQE of the list (mlx5dv's head)
     * @param tail the last WQE of the list (mlx5dv's tail)
     * @param linkAtPost whether freed WQEs are linked at the next post (libmlx5 48 and later) rather than at once
     * @throws IllegalArgumentException if head or tail lies outside {@code [0, wqes)} or the buffer is too small
     */
    public SrqFreeList(final MemorySegment buf, final int stride, final int wqes, final int head, final int tail,
        final boolean linkAtPost)
    {
        if (wqes <= 0 || wqes > 0x10000 || head < 0 || head >= wqes || tail < 0 || tail >= wqes
            || buf.byteSize() < (long) wqes * stride)
        {
            throw new IllegalArgumentException("SRQ free list of " + wqes + " WQEs of " + stride + " bytes, head "
                + head + ", tail " + tail + ", over " + buf.byteSize() + " bytes");
        }
        this.buf = buf;
        this.stride = stride;
        this.wqes = wqes;
        this.head = head;
        this.tail = tail;
        this.linkAtPost = linkAtPost;
        this.freed = new long[linkAtPost ? (wqes + 63) >>> 6 : 0];
    }

    /**
     * A free list kept as the libmlx5 mapped into this process keeps it ({@link Libmlx5Release#running()}); a release
     * that cannot be told gets the scheme of 48 and later, the one every release since mid-2023 has.
     *
     * @param buf the SRQ's WQEs
     * @param stride bytes per WQE
     * @param wqes WQEs in the free list's range (mlx5dv's tail + 1)
     * @param head the first WQE of the list (mlx5dv's head)
     * @param tail the last WQE of the list (mlx5dv's tail)
     * @return the list
     * @throws IllegalArgumentException as {@link #SrqFreeList}
     * @throws java.io.UncheckedIOException if /proc/self/maps cannot be read
     */
    public static SrqFreeList forRunningLibrary(final MemorySegment buf, final int stride, final int wqes,
        final int head, final int tail)
    {
        return new SrqFreeList(buf, stride, wqes, head, tail, linksAtPost(Libmlx5Release.running()));
    }

    /**
     * Whether libmlx5 of {@code release} links freed WQEs at the next post.
     *
     * @param release an rdma-core release, or {@link Libmlx5Release#UNKNOWN}
     * @return true for 48 and later and for an unknown release
     */
    public static boolean linksAtPost(final int release)
    {
        return release < 0 || release >= FIRST_RELEASE_LINKING_AT_POST;
    }

    /** {@return whether this list links freed WQEs at the next post (libmlx5 48 and later)} */
    public boolean linksAtPost()
    {
        return linkAtPost;
    }

    /** {@return the first WQE of the list: the one the next {@link #take()} returns} */
    public int head()
    {
        return head;
    }

    /** {@return the last WQE of the list} */
    public int tail()
    {
        return tail;
    }

    /**
     * Takes the WQE at the head for a post and moves the head to the WQE it links to (its next_wqe_index, which the
     * post leaves as it is). With the post-time scheme an empty list first links what completions freed.
     *
     * @return the WQE's index, or -1 if no WQE is free (nothing changed)
     */
    public int take()
    {
        if (head == tail && (!linkAtPost || !linkFreed()))
        {
            return -1;
        }
        final int slot = head;
        head = Be.be16(buf, (long) slot * stride + SrqNextSeg.NEXT_WQE_INDEX_OFFSET);
        return slot;
    }

    /**
     * Gives back a WQE the device consumed: linked after the tail now (release 47 and older), or marked for the next
     * post that finds the list empty (48 and later). The caller checks that {@code index} was taken and not given back.
     *
     * @param index the WQE, in {@code [0, wqes)}
     */
    public void release(final int index)
    {
        if (linkAtPost)
        {
            freed[index >>> 6] |= 1L << index;
        }
        else
        {
            SrqNextSeg.setNextWqeIndex(buf, (long) tail * stride, index);
            tail = index;
        }
    }

    /**
     * libmlx5 48+'s refill of a list that holds only its tail: the WQE after the tail if it was freed, else the
     * nearest run of freed WQEs above the head, else below it. Runs on a post that found the list empty only.
     *
     * @return false if no WQE was freed since the last refill (the SRQ is full)
     */
    private boolean linkFreed()
    {
        final int next = tail + 1 == wqes ? 0 : tail + 1;
        if (isFreed(next))
        {
            link(next, next);
            return true;
        }
        int first = nextFreed(head + 1, wqes);
        int end = wqes;
        if (first == wqes)
        {
            first = nextFreed(0, head);
            end = head;
            if (first == head)
            {
                return false;
            }
        }
        link(first, nextNotFreed(first + 1, end) - 1);
        return true;
    }

    /** Links the run {@code first..last} after the tail, each WQE pointing at the next; the run's last is the tail. */
    private void link(final int first, final int last)
    {
        SrqNextSeg.setNextWqeIndex(buf, (long) tail * stride, first);
        for (int i = first; i < last; i++)
        {
            SrqNextSeg.setNextWqeIndex(buf, (long) i * stride, i + 1);
        }
        for (int i = first; i <= last; i++)
        {
            freed[i >>> 6] &= ~(1L << i);
        }
        tail = last;
    }

    private boolean isFreed(final int index)
    {
        return (freed[index >>> 6] & 1L << index) != 0;
    }

    /** The first freed WQE in {@code [from, to)}, or {@code to}. */
    private int nextFreed(final int from, final int to)
    {
        if (from >= to)
        {
            return to;
        }
        int w = from >>> 6;
        long word = freed[w] & -1L << from;
        while (word == 0)
        {
            if (++w << 6 >= to)
            {
                return to;
            }
            word = freed[w];
        }
        return Math.min(to, (w << 6) + Long.numberOfTrailingZeros(word));
    }

    /** The first WQE in {@code [from, to)} that was not freed, or {@code to}. */
    private int nextNotFreed(final int from, final int to)
    {
        if (from >= to)
        {
            return to;
        }
        int w = from >>> 6;
        long word = ~freed[w] & -1L << from;
        while (word == 0)
        {
            if (++w << 6 >= to)
            {
                return to;
            }
            word = ~freed[w];
        }
        return Math.min(to, (w << 6) + Long.numberOfTrailingZeros(word));
    }
}
