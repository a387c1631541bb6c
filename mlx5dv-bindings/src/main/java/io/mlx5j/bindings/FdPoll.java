// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The one timed wait on a file descriptor, used by every event source: completion channels
 * ({@code ibv_get_cq_event}) and rdma_cm event channels ({@code rdma_get_cm_event}) block in read(2) with no timeout,
 * so a wait that must end asks poll(2) first. A zero timeout only looks, without touching the descriptor's flags
 * (which libibverbs, librdmacm and a user's epoll may share). Not a hot path: it allocates a confined arena per call.
 *
 * <p>Thread model: stateless; any thread (a call blocks only the calling thread).
 */
public final class FdPoll
{
    private FdPoll()
    {
    }

    /**
     * Waits until {@code fd} is readable (or reports an error or hang-up, which the following read then returns).
     * Repeats on EINTR and on a timeout that rounding to milliseconds ended early, until the deadline.
     *
     * @param timeoutNanos how long to wait; 0 only looks, negative waits without limit
     * @param fd the file descriptor
     * @return true if readable, false when the time ran out
     * @throws IllegalStateException if poll fails for another reason than EINTR (EFAULT, EINVAL, ENOMEM)
     */
    public static boolean readable(final int fd, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment pfd = arena.allocate(Pollfd.LAYOUT);
            while (true)
            {
                pfd.set(JAVA_INT, Pollfd.FD_OFFSET, fd);
                pfd.set(JAVA_SHORT, Pollfd.EVENTS_OFFSET, Pollfd.POLLIN);
                pfd.set(JAVA_SHORT, Pollfd.REVENTS_OFFSET, (short) 0);
                final int millis;
                if (timeoutNanos < 0)
                {
                    millis = -1;
                }
                else
                {
                    // round up, so that a wait with half a millisecond left still sleeps instead of spinning
                    final long left = Math.max(0, deadline - System.nanoTime());
                    millis = (int) Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000);
                }
                final int rc = Libc.poll(state, pfd, 1L, millis);
                if (rc > 0)
                {
                    return true;
                }
                if (rc < 0 && CallState.errno(state) != Libc.EINTR)
                {
                    throw new IllegalStateException("poll(fd " + fd + ") failed: errno " + CallState.errno(state));
                }
                if (timeoutNanos >= 0 && System.nanoTime() - deadline >= 0)
                {
                    return false;
                }
            }
        }
    }
}
