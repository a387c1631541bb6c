package io.mlx5j.direct;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** poll(2) on one file descriptor, so a completion-channel wait can time out (ibv_get_cq_event alone blocks). */
final class ChannelPoll
{
    private static final short POLLIN = 1;
    private static final MethodHandle POLL = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("poll").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));

    private ChannelPoll()
    {
    }

    /** @return true if {@code fd} became readable within {@code timeoutMillis} (negative: wait forever) */
    static boolean readable(final int fd, final long timeoutMillis)
    {
        final long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment pfd = tmp.allocate(8, 4);   // struct pollfd { int fd; short events, revents; }
            while (true)
            {
                pfd.set(JAVA_INT, 0, fd);
                pfd.set(JAVA_SHORT, 4, POLLIN);
                pfd.set(JAVA_SHORT, 6, (short) 0);
                final long left = timeoutMillis < 0 ? -1 : Math.max(0, (deadline - System.nanoTime()) / 1_000_000L);
                final int rc = (int) POLL.invokeExact(pfd, 1L, (int) Math.min(left, Integer.MAX_VALUE));
                if (rc > 0)
                {
                    return true;
                }
                if (timeoutMillis >= 0 && System.nanoTime() >= deadline)
                {
                    return false;
                }
                // rc < 0: EINTR (or a closed fd, which the following ibv call reports); try again
            }
        }
        catch (final Throwable t)
        {
            if (t instanceof RuntimeException r)
            {
                throw r;
            }
            if (t instanceof Error e)
            {
                throw e;
            }
            throw new IllegalStateException(t);
        }
    }
}
