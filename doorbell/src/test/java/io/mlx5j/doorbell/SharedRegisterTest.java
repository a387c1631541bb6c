// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two QPs on two threads share one BlueFlame register. With {@code shared = true} every post's read-modify-write of
 * the half offset happens under the register's lock, so after an even number of posts the offset is back at 0 and no
 * BlueFlame half ever holds a mix of two WQEs. Without the lock, lost toggles and torn halves show up within a few
 * hundred thousand posts; {@link #theSameCheckSeesTearingOnAnUnsharedRegister} runs the same check on an unshared
 * register to prove it.
 */
class SharedRegisterTest
{
    private static final int POSTS_PER_THREAD = 200_001; // odd per thread, even in total

    @Test
    void lockedPostsNeverLoseAToggleNorInterleaveWqes() throws InterruptedException
    {
        final Outcome shared = hammer(true, POSTS_PER_THREAD);
        assertEquals(0, shared.torn, "torn BlueFlame halves");
        assertEquals(0, shared.offset, "an even number of posts must leave the offset at half 0");
    }

    /**
     * The check above can only mean something if it sees tearing where tearing happens: the same two threads on a
     * register built unshared (no lock around the UAR stores) must show a torn half or a lost toggle. Races are not
     * certain in any one round on a loaded machine, so rounds repeat until one shows, within a time bound.
     */
    @Test
    void theSameCheckSeesTearingOnAnUnsharedRegister() throws InterruptedException
    {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        int rounds = 0;
        Outcome unshared;
        do
        {
            unshared = hammer(false, POSTS_PER_THREAD);
            rounds++;
        }
        while (unshared.torn == 0 && unshared.offset == 0 && System.nanoTime() < deadline);
        assertTrue(unshared.torn > 0 || unshared.offset != 0,
            "no torn half and no lost toggle in " + rounds + " rounds on an unshared register: the check is blind");
    }

    /** What the inspecting threads saw: torn halves, and the register's half offset after all posts. */
    private record Outcome(int torn, long offset)
    {
    }

    /** Two threads, one QP each, post {@code postsPerThread} times on one register and inspect the idle half. */
    private static Outcome hammer(final boolean sharedRegister, final int postsPerThread) throws InterruptedException
    {
        final MemorySegment reg = MemorySegment.ofArray(new long[512 / 8]);
        final BlueFlameRegister bf = new BlueFlameRegister(reg, 256, sharedRegister);
        final SendDoorbell[] qps = new SendDoorbell[2];
        for (int q = 0; q < 2; q++)
        {
            final MemorySegment sq = MemorySegment.ofArray(new long[256 / 8]);
            final long pattern = 0x0101_0101_0101_0101L * (q + 1);
            for (long off = 0; off < 256; off += 8)
            {
                sq.set(ValueLayout.JAVA_LONG, off, pattern); // QP q's WQEs are all bytes q + 1
            }
            qps[q] = new SendDoorbell(sq, new DoorbellRecord(MemorySegment.ofArray(new long[1])), bf,
                DoorbellMode.BLUEFLAME);
        }
        final CountDownLatch start = new CountDownLatch(1);
        final int[] torn = new int[2];
        final Thread[] threads = new Thread[2];
        for (int q = 0; q < 2; q++)
        {
            final int me = q;
            threads[q] = Thread.ofPlatform().start(() ->
            {
                try
                {
                    start.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < postsPerThread; i++)
                {
                    qps[me].ring((i & 3) * 64L, 16, i + 1); // 256 bytes: fills a whole half
                    // Inspect the other half under the lock: it holds exactly one QP's WQE, never a mix. (On an
                    // unshared register the posts do not take the lock, so this inspection races them.)
                    bf.lock();
                    final long half = bf.offset() ^ 256;
                    final long first = reg.get(ValueLayout.JAVA_LONG, half);
                    for (long off = 8; off < 256; off += 8)
                    {
                        if (reg.get(ValueLayout.JAVA_LONG, half + off) != first)
                        {
                            torn[me]++;
                            break;
                        }
                    }
                    bf.unlock();
                }
            });
        }
        start.countDown();
        for (final Thread t : threads)
        {
            t.join();
        }
        return new Outcome(torn[0] + torn[1], bf.offset());
    }

    /**
     * A post that throws while holding the shared register (here: its QP's ring was freed under it) must release
     * the lock; otherwise every other QP on the register spins forever on its next post.
     */
    @Test
    void aThrowingPostReleasesTheSharedRegister()
    {
        final MemorySegment reg = MemorySegment.ofArray(new long[512 / 8]);
        final BlueFlameRegister bf = new BlueFlameRegister(reg, 256, true);
        final Arena arena = Arena.ofShared();
        final SendDoorbell dead = new SendDoorbell(arena.allocate(256, 64),
            new DoorbellRecord(MemorySegment.ofArray(new long[1])), bf, DoorbellMode.BLUEFLAME);
        arena.close();
        assertThrows(IllegalStateException.class, () -> dead.ring(0, 4, 1));

        final MemorySegment sq = MemorySegment.ofArray(new long[256 / 8]);
        sq.fill((byte) 0x33);
        final SendDoorbell live = new SendDoorbell(sq, new DoorbellRecord(MemorySegment.ofArray(new long[1])), bf,
            DoorbellMode.BLUEFLAME);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> live.ring(0, 4, 1),
            "the register stayed locked after the failed post");
        final byte[] expect = new byte[64];
        java.util.Arrays.fill(expect, (byte) 0x33);
        assertArrayEquals(expect, reg.asSlice(bf.offset() ^ 256, 64).toArray(ValueLayout.JAVA_BYTE));
    }
}
