// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The libmlx5 calls the raw Ethernet benchmarks make beyond {@link Libmlx5}'s, reached the same way: the provider
 * function pointers verbs.h's static inlines call ({@code qp->context->ops.post_recv}, the {@code ibv_cq_ex}
 * members behind {@code ibv_start_poll}, {@code ibv_next_poll}, {@code ibv_end_poll} and {@code ibv_wc_read_*}, the
 * {@code ibv_qp_ex} list setters), through downcall handles linked with {@code Linker.Option.critical(false)} (none
 * of them blocks; they touch user memory, a spinlock and, for start_poll on a wallclock CQ, the clock-info page).
 */
final class RawLibmlx5
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final ValueLayout P = ValueLayout.ADDRESS;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG;

    /** int post_recv(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **). */
    private static final MethodHandle POST_RECV = LINKER.downcallHandle(FunctionDescriptor.of(I, P, P, P), CRITICAL);
    /** int start_poll(struct ibv_cq_ex *, struct ibv_poll_cq_attr *). */
    private static final MethodHandle START_POLL = LINKER.downcallHandle(FunctionDescriptor.of(I, P, P), CRITICAL);
    /** int next_poll(struct ibv_cq_ex *); uint32_t read_byte_len(struct ibv_cq_ex *) (and the other 32-bit reads). */
    private static final MethodHandle CQ_INT = LINKER.downcallHandle(FunctionDescriptor.of(I, P), CRITICAL);
    /** void end_poll(struct ibv_cq_ex *). */
    private static final MethodHandle CQ_VOID = LINKER.downcallHandle(FunctionDescriptor.ofVoid(P), CRITICAL);
    /** uint64_t read_completion_ts(struct ibv_cq_ex *) (and read_completion_wallclock_ns). */
    private static final MethodHandle CQ_LONG = LINKER.downcallHandle(FunctionDescriptor.of(L, P), CRITICAL);
    /** void wr_set_sge_list(struct ibv_qp_ex *, size_t, const struct ibv_sge *) (and wr_set_inline_data_list). */
    private static final MethodHandle WR_LIST = LINKER.downcallHandle(FunctionDescriptor.ofVoid(P, L, P), CRITICAL);

    private RawLibmlx5()
    {
    }

    static int postRecv(final MemorySegment fn, final MemorySegment qp, final MemorySegment wr,
        final MemorySegment badWr)
    {
        try
        {
            return (int) POST_RECV.invokeExact(fn, qp, wr, badWr);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int startPoll(final MemorySegment fn, final MemorySegment cqx, final MemorySegment attr)
    {
        try
        {
            return (int) START_POLL.invokeExact(fn, cqx, attr);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /** next_poll, read_byte_len, read_wc_flags, ...: {@code int fn(cq)}. */
    static int cqInt(final MemorySegment fn, final MemorySegment cqx)
    {
        try
        {
            return (int) CQ_INT.invokeExact(fn, cqx);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void endPoll(final MemorySegment fn, final MemorySegment cqx)
    {
        try
        {
            CQ_VOID.invokeExact(fn, cqx);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /** read_completion_ts, read_completion_wallclock_ns: {@code uint64_t fn(cq)}. */
    static long cqLong(final MemorySegment fn, final MemorySegment cqx)
    {
        try
        {
            return (long) CQ_LONG.invokeExact(fn, cqx);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void wrList(final MemorySegment fn, final MemorySegment qpx, final long n, final MemorySegment list)
    {
        try
        {
            WR_LIST.invokeExact(fn, qpx, n, list);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    private static RuntimeException rethrow(final Throwable ex)
    {
        if (ex instanceof RuntimeException r)
        {
            throw r;
        }
        if (ex instanceof Error e)
        {
            throw e;
        }
        throw new IllegalStateException(ex);
    }
}
