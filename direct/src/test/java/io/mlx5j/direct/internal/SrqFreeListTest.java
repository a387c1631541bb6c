// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.memory.Be;
import io.mlx5j.wqe.SrqNextSeg;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SrqFreeList} under both schemes, against sequences worked out by hand from rdma-core's providers/mlx5/srq.c
 * (v44 mlx5_free_srq_wqe links at the completion; v48..v65 set_next_tail / set_next_contig_wqes link at the post).
 * RecvParityTest compares the same lists with the real libmlx5 of the release it runs against; this test holds the
 * scheme that CI's release (44) does not run.
 */
class SrqFreeListTest
{
    private static final int STRIDE = 32;

    /** A ring as libmlx5 leaves it after creating the SRQ: WQE i links to i + 1, the last to 0 (zeroed buffer). */
    private static MemorySegment ring(final Arena arena, final int wqes)
    {
        final MemorySegment buf = arena.allocate((long) wqes * STRIDE, 64);
        for (int i = 0; i < wqes - 1; i++)
        {
            SrqNextSeg.setNextWqeIndex(buf, (long) i * STRIDE, i + 1);
        }
        return buf;
    }

    private static int next(final MemorySegment buf, final int wqe)
    {
        return Be.be16(buf, (long) wqe * STRIDE + SrqNextSeg.NEXT_WQE_INDEX_OFFSET);
    }

    /** Takes every WQE a fresh list gives (all but the tail) and checks they come in ring order. */
    private static void fill(final SrqFreeList list, final int wqes)
    {
        for (int i = 0; i < wqes - 1; i++)
        {
            assertEquals(i, list.take());
        }
        assertEquals(-1, list.take(), "one WQE stays in the list");
    }

    @Test
    void releasesUpTo47LinkAtTheCompletionInCompletionOrder()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buf = ring(arena, 8);
            final SrqFreeList list = new SrqFreeList(buf, STRIDE, 8, 0, 7, false);
            fill(list, 8);
            list.release(3);
            list.release(1);
            list.release(6);
            assertEquals(3, next(buf, 7));
            assertEquals(1, next(buf, 3));
            assertEquals(6, next(buf, 1));
            assertEquals(6, list.tail());
            assertEquals(7, list.take());
            assertEquals(3, list.take());
            assertEquals(1, list.take());
            assertEquals(-1, list.take());
        }
    }

    @Test
    void releases48OnMarkAtTheCompletionAndLinkTheNearestFreedWqeAtThePost()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buf = ring(arena, 8);
            final SrqFreeList list = new SrqFreeList(buf, STRIDE, 8, 0, 7, true);
            fill(list, 8);
            final byte[] before = buf.toArray(ValueLayout.JAVA_BYTE);
            list.release(3);
            list.release(1);
            list.release(6);
            assertArrayEquals(before, buf.toArray(ValueLayout.JAVA_BYTE), "a completion writes nothing");
            // head == tail == 7; WQE 0 (after the tail) is busy, nothing above the head: the first run below, 1
            assertEquals(7, list.take());
            assertEquals(1, next(buf, 7));
            assertEquals(1, list.tail());
            // head == tail == 1; 2 busy; the first run above the head is 3
            assertEquals(1, list.take());
            assertEquals(3, next(buf, 1));
            // then 6, the only freed WQE left
            assertEquals(3, list.take());
            assertEquals(6, next(buf, 3));
            assertEquals(-1, list.take(), "nothing freed: the SRQ is full");
            assertEquals(6, list.head());
            assertEquals(6, list.tail());
        }
    }

    @Test
    void theWqeAfterTheTailComesFirstThenARunRenumberedInOrder()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buf = ring(arena, 8);
            final SrqFreeList list = new SrqFreeList(buf, STRIDE, 8, 0, 7, true);
            fill(list, 8);
            list.release(4);
            list.release(0);
            list.release(3);
            list.release(2);
            // next_wqe_index of a consumed WQE is whatever it was: stale links the refill must rewrite
            SrqNextSeg.setNextWqeIndex(buf, 2L * STRIDE, 0x1234);
            SrqNextSeg.setNextWqeIndex(buf, 3L * STRIDE, 0x1234);
            SrqNextSeg.setNextWqeIndex(buf, 4L * STRIDE, 0x4321);
            // (tail + 1) % wqes = 0 was freed: linked alone (set_next_tail), though 2..4 wait above it
            assertEquals(7, list.take());
            assertEquals(0, next(buf, 7));
            assertEquals(0, list.tail());
            // head == tail == 0; 1 is busy; the run 2..4 above the head, each pointing at the next
            assertEquals(0, list.take());
            assertEquals(2, next(buf, 0));
            assertEquals(3, next(buf, 2));
            assertEquals(4, next(buf, 3));
            assertEquals(0x4321, next(buf, 4), "the run's last WQE keeps its link, as libmlx5 leaves it");
            assertEquals(4, list.tail());
            assertEquals(2, list.take());
            assertEquals(3, list.take());
            assertEquals(-1, list.take());
        }
    }

    @Test
    void runsAcrossBitmapWordsAndTheSearchBelowTheHead()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buf = ring(arena, 256);
            final SrqFreeList list = new SrqFreeList(buf, STRIDE, 256, 0, 255, true);
            fill(list, 256);
            list.release(200);
            for (int i = 70; i >= 60; i--)
            {
                list.release(i);
            }
            // head == tail == 255: 0 busy, nothing above 255, so the first run below: 60..70 across words 0 and 1
            assertEquals(255, list.take());
            assertEquals(60, next(buf, 255));
            assertEquals(70, list.tail());
            for (int i = 60; i < 70; i++)
            {
                assertEquals(i + 1, next(buf, i));
                assertEquals(i, list.take());
            }
            // head == tail == 70: 71 busy; the run above the head is 200 (word 3)
            assertEquals(70, list.take());
            assertEquals(200, next(buf, 70));
            assertEquals(-1, list.take());
            // a run that ends at the top of the range (253..255) is found above the head before 100 below it
            list.release(255);
            list.release(100);
            list.release(254);
            list.release(253);
            assertEquals(200, list.take());
            assertEquals(253, next(buf, 200));
            assertEquals(254, next(buf, 253));
            assertEquals(255, next(buf, 254));
            assertEquals(255, list.tail());
            assertEquals(253, list.take());
            assertEquals(254, list.take());
            // head == tail == 255: (255 + 1) % 256 = 0 is busy, nothing above, so 100 below
            assertEquals(255, list.take());
            assertEquals(100, next(buf, 255));
            assertEquals(-1, list.take());
        }
    }

    @Test
    void schemeByRelease()
    {
        assertFalse(SrqFreeList.linksAtPost(44));
        assertFalse(SrqFreeList.linksAtPost(47));
        assertTrue(SrqFreeList.linksAtPost(48));
        assertTrue(SrqFreeList.linksAtPost(65));
        assertTrue(SrqFreeList.linksAtPost(Libmlx5Release.UNKNOWN));
    }

    @Test
    void refusesAListOutsideItsRing()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buf = ring(arena, 8);
            assertThrows(IllegalArgumentException.class, () -> new SrqFreeList(buf, STRIDE, 8, 8, 7, true));
            assertThrows(IllegalArgumentException.class, () -> new SrqFreeList(buf, STRIDE, 8, 0, -1, false));
            assertThrows(IllegalArgumentException.class, () -> new SrqFreeList(buf, STRIDE, 16, 0, 15, true));
        }
    }
}
