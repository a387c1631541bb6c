// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * libmlx5's data path reached from Java the way a Java program without mlx5j would reach it: the provider function
 * pointers verbs.h's static inlines call ({@code qp->context->ops.post_send}, {@code cq->context->ops.poll_cq},
 * the {@code ibv_qp_ex} members behind {@code ibv_wr_*}), resolved once, called through downcall handles linked with
 * {@code Linker.Option.critical(false)} (no thread-state transition: these calls never block, they only touch user
 * memory, a spinlock and the UAR page).
 * <p>
 * One handle per C signature; every method is a thin {@code invokeExact} so the JIT sees a constant handle.
 */
final class Libmlx5
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final ValueLayout P = ValueLayout.ADDRESS;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG;

    /** int post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **). */
    private static final MethodHandle POST = LINKER.downcallHandle(FunctionDescriptor.of(I, P, P, P), CRITICAL);
    /** int poll_cq(struct ibv_cq *, int, struct ibv_wc *). */
    private static final MethodHandle POLL = LINKER.downcallHandle(FunctionDescriptor.of(I, P, I, P), CRITICAL);
    /** void wr_start(struct ibv_qp_ex *) (also wr_send). */
    private static final MethodHandle WR_VOID = LINKER.downcallHandle(FunctionDescriptor.ofVoid(P), CRITICAL);
    /** int wr_complete(struct ibv_qp_ex *). */
    private static final MethodHandle WR_COMPLETE = LINKER.downcallHandle(FunctionDescriptor.of(I, P), CRITICAL);
    /** void wr_rdma_write(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr). */
    private static final MethodHandle WR_IL = LINKER.downcallHandle(FunctionDescriptor.ofVoid(P, I, L), CRITICAL);
    /** void wr_set_sge(struct ibv_qp_ex *, uint32_t lkey, uint64_t addr, uint32_t length). */
    private static final MethodHandle WR_ILI = LINKER.downcallHandle(FunctionDescriptor.ofVoid(P, I, L, I), CRITICAL);
    /** void wr_set_inline_data(struct ibv_qp_ex *, void *addr, size_t length). */
    private static final MethodHandle WR_PL = LINKER.downcallHandle(FunctionDescriptor.ofVoid(P, P, L), CRITICAL);
    /** void wr_set_dc_addr(struct mlx5dv_qp_ex *, struct ibv_ah *, uint32_t remote_dctn, uint64_t remote_dc_key). */
    private static final MethodHandle WR_PPIL = LINKER.downcallHandle(FunctionDescriptor.ofVoid(P, P, I, L), CRITICAL);

    private Libmlx5()
    {
    }

    /**
     * The same address as a zero-length segment of the global scope, as a careful FFM caller passes C pointers.
     * A segment of a shared arena (the direct module scopes every object to one) is acquired and released around
     * each downcall it is an argument of: two atomic updates of the arena's state, about 5 ns each on the
     * benchmark machine, which would be charged to libmlx5 here. The objects outlive every benchmark call.
     */
    static MemorySegment raw(final MemorySegment pointer)
    {
        return MemorySegment.ofAddress(pointer.address());
    }

    static int postSend(final MemorySegment fn, final MemorySegment qp, final MemorySegment wr,
        final MemorySegment badWr)
    {
        try
        {
            return (int) POST.invokeExact(fn, qp, wr, badWr);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int pollCq(final MemorySegment fn, final MemorySegment cq, final int numEntries, final MemorySegment wc)
    {
        try
        {
            return (int) POLL.invokeExact(fn, cq, numEntries, wc);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void wr(final MemorySegment fn, final MemorySegment qpx)
    {
        try
        {
            WR_VOID.invokeExact(fn, qpx);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int wrComplete(final MemorySegment fn, final MemorySegment qpx)
    {
        try
        {
            return (int) WR_COMPLETE.invokeExact(fn, qpx);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void wrRdma(final MemorySegment fn, final MemorySegment qpx, final int rkey, final long remoteAddr)
    {
        try
        {
            WR_IL.invokeExact(fn, qpx, rkey, remoteAddr);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void wrSetDcAddr(final MemorySegment fn, final MemorySegment mqp, final MemorySegment ah, final int dctn,
        final long dcKey)
    {
        try
        {
            WR_PPIL.invokeExact(fn, mqp, ah, dctn, dcKey);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void wrSetSge(final MemorySegment fn, final MemorySegment qpx, final int lkey, final long addr,
        final int length)
    {
        try
        {
            WR_ILI.invokeExact(fn, qpx, lkey, addr, length);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void wrSetInlineData(final MemorySegment fn, final MemorySegment qpx, final MemorySegment addr,
        final long length)
    {
        try
        {
            WR_PL.invokeExact(fn, qpx, addr, length);
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
