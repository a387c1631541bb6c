package io.mlx5j.direct;

import io.mlx5j.bindings.CallState;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** libc poll(2) on one descriptor, so event waits can time out instead of blocking in a read forever. */
final class Poll
{
    /** struct pollfd: int fd; short events; short revents. */
    private static final StructLayout POLLFD = MemoryLayout.structLayout(
        JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));
    private static final short POLLIN = 1;
    private static final int EINTR = 4;

    private static final MethodHandle POLL = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("poll").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), CallState.OPTION);

    private Poll()
    {
    }

    /** Waits until {@code fd} is readable; false on timeout. Retries on EINTR within the deadline. */
    static boolean readable(final int fd, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment pfd = arena.allocate(POLLFD);
            while (true)
            {
                pfd.set(JAVA_INT, 0, fd);
                pfd.set(JAVA_SHORT, 4, POLLIN);
                pfd.set(JAVA_SHORT, 6, (short) 0);
                final long left = deadline - System.nanoTime();
                final int millis = (int) Math.max(0, Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000));
                final int rc = (int) POLL.invokeExact(state, pfd, 1L, millis);
                if (rc > 0)
                {
                    return true;
                }
                if (rc == 0)
                {
                    if (System.nanoTime() - deadline >= 0)
                    {
                        return false;
                    }
                    continue;
                }
                if (CallState.errno(state) != EINTR)
                {
                    throw new VerbsException("poll", CallState.errno(state), "fd " + fd);
                }
            }
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError(ex);
        }
    }
}
