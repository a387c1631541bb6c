package io.mlx5j.cm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * poll(2) on the event channel's fd: rdma_get_cm_event itself blocks in read(2) with no timeout, so every wait
 * first asks poll whether an event is there (and a zero timeout makes {@link EventChannel#poll} non-blocking
 * without touching the fd's flags, which librdmacm and a user's epoll may share).
 */
final class FdPoll
{
    private static final short POLLIN = 1;
    private static final MethodHandle POLL = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("poll").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));

    private FdPoll()
    {
    }

    /** @return true if {@code fd} is readable within {@code timeoutNanos} (0: just look) */
    static boolean readable(final int fd, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment pfd = tmp.allocate(8, 4);   // struct pollfd { int fd; short events, revents; }
            while (true)
            {
                pfd.set(JAVA_INT, 0, fd);
                pfd.set(JAVA_SHORT, 4, POLLIN);
                pfd.set(JAVA_SHORT, 6, (short) 0);
                final long left = Math.max(0, deadline - System.nanoTime());
                // round up so a 0.5 ms rest still waits instead of spinning
                final int ms = (int) Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000);
                final int rc = (int) POLL.invokeExact(pfd, 1L, ms);
                if (rc > 0)
                {
                    return true;
                }
                if (System.nanoTime() - deadline >= 0)
                {
                    return false;
                }
                // rc == 0 before the deadline (rounding) or rc < 0 (EINTR): look again
            }
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException(t);
        }
    }
}
