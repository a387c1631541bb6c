// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import io.mlx5j.bindings.IbvContext;
import io.mlx5j.bindings.Mlx5IbClockInfo;
import io.mlx5j.direct.Completion;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.verbs.internal.GlobalSymbols;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The NIC's clock as the kernel publishes it in the clock-info page ({@code struct mlx5_ib_clock_info}), read from
 * Java: {@link #toNanos(long)} turns a CQE timestamp ({@link Completion#timestamp()}, device ticks) into nanoseconds
 * since the epoch with the arithmetic of {@code mlx5dv_ts_to_ns} (mlx5dv.h), over a snapshot taken the way libmlx5's
 * {@code mlx5dv_get_clock_info} takes it (providers/mlx5/mlx5.c): read {@code sign}; if the kernel is updating
 * (bit 0) read again; copy the fields; retry when {@code sign} changed meanwhile. No allocation, no system call.
 * <p>
 * The page is mapped here a second time, read-only, from the device file at the offset libmlx5 uses
 * ({@code MLX5_IB_MMAP_CLOCK_INFO << 8 | MLX5_IB_CLOCK_INFO_V1} pages), through the process's {@code mmap} as the
 * dynamic linker resolves it for libmlx5 (so an interposed device, like the emulator, serves it too). The mapping
 * lives until {@link #close()} or until the context closes.
 * <p>
 * Thread-safe: the page is only read.
 */
public final class NicClock implements AutoCloseable
{
    private static final int PROT_READ = 1;
    private static final int MAP_SHARED = 1;
    private static final int MMAP_CMD_SHIFT = 8;    // MLX5_IB_MMAP_CMD_SHIFT, rdma-core v44 providers/mlx5/mlx5.h
    private static final int RETRIES = 10;          // _mlx5dv_get_clock_info's spin on KERNEL_UPDATING
    private static final VarHandle SIGN = ValueLayout.JAVA_INT.varHandle();

    private final Context context;
    private final Arena arena;
    private final MemorySegment page;

    private NicClock(final Context context, final Arena arena, final MemorySegment page)
    {
        this.context = context;
        this.arena = arena;
        this.page = page;
    }

    /**
     * Maps {@code context}'s clock-info page.
     *
     * @param context an open device context
     * @return the clock; close it, or the context, to unmap the page
     * @throws VerbsException if the device has no clock-info page (mmap fails, as for libmlx5, whose
     *                        mlx5dv_get_clock_info then returns EINVAL)
     */
    public static NicClock of(final Context context)
    {
        final int fd = context.pointer().get(JAVA_INT, IbvContext.CMD_FD_OFFSET);
        final long pageSize = Libc.pageSize();
        final long pgoff = ((long) Mlx5IbClockInfo.MLX5_IB_MMAP_CLOCK_INFO << MMAP_CMD_SHIFT) |
            Mlx5IbClockInfo.MLX5_IB_CLOCK_INFO_V1;
        final long address = Libc.mmap(pageSize, PROT_READ, MAP_SHARED, fd, pgoff * pageSize);
        if (address == -1L)
        {
            throw new VerbsException("mmap(clock info page)", Libc.lastErrno(), context.deviceName());
        }
        // the mapping belongs to a shared arena: after close() a read throws instead of touching an unmapped page
        final Arena arena = Arena.ofShared();
        final MemorySegment page = MemorySegment.ofAddress(address).reinterpret(pageSize, arena,
            s -> Libc.munmap(s.address(), pageSize));
        return new NicClock(context, arena, page);
    }

    /**
     * Nanoseconds since the epoch at device time {@code ticks}, as mlx5dv_ts_to_ns computes it from a clock info
     * libmlx5 just read.
     *
     * @param ticks a device timestamp, e.g. {@link Completion#timestamp()}
     * @return nanoseconds since the epoch
     * @throws IllegalStateException if the clock is closed (its page unmapped)
     * @throws IllegalStateException if the kernel kept the page in an update for 10 reads in a row (libmlx5:
     *                               EBUSY)
     */
    public long toNanos(final long ticks)
    {
        final MemorySegment p = page;
        int retry = RETRIES;
        while (true)
        {
            final int sign = (int) SIGN.getAcquire(p, (long) Mlx5IbClockInfo.SIGN_OFFSET);
            if ((sign & Mlx5IbClockInfo.MLX5_IB_CLOCK_INFO_KERNEL_UPDATING) != 0)
            {
                if (--retry == 0)
                {
                    throw busy();
                }
                continue;
            }
            final long nsec = p.get(JAVA_LONG, Mlx5IbClockInfo.NSEC_OFFSET);
            final long cycles = p.get(JAVA_LONG, Mlx5IbClockInfo.CYCLES_OFFSET);
            final long frac = p.get(JAVA_LONG, Mlx5IbClockInfo.FRAC_OFFSET);
            final int mult = p.get(JAVA_INT, Mlx5IbClockInfo.MULT_OFFSET);
            final int shift = p.get(JAVA_INT, Mlx5IbClockInfo.SHIFT_OFFSET);
            final long mask = p.get(JAVA_LONG, Mlx5IbClockInfo.MASK_OFFSET);
            // the field reads must not move below the second sign read (libmlx5 uses atomic loads, seq_cst)
            VarHandle.loadLoadFence();
            if ((int) SIGN.getAcquire(p, (long) Mlx5IbClockInfo.SIGN_OFFSET) == sign)
            {
                return toNanos(nsec, cycles, frac, mult, shift, mask, ticks);
            }
            retry = RETRIES;
        }
    }

    private IllegalStateException busy()
    {
        return new IllegalStateException("the clock-info page of " + context.deviceName() +
            " stayed in an update for " + RETRIES + " reads (libmlx5: EBUSY)");
    }

    /**
     * mlx5dv_ts_to_ns (mlx5dv.h, rdma-core 44) on the fields of a {@code struct mlx5dv_clock_info}, in unsigned 64-bit
     * arithmetic: a timestamp less than half the mask ahead of {@code lastCycles} is newer, anything else older.
     * Pure and thread-safe; public so that a snapshot taken elsewhere (e.g. by libmlx5) converts the same way.
     *
     * @param nsec       the snapshot's time, nanoseconds since the epoch
     * @param lastCycles the device ticks at {@code nsec}
     * @param frac       the fractional nanoseconds carried, in units of 2^-shift ns
     * @param mult       ticks-to-nanoseconds multiplier, unsigned 32 bits
     * @param shift      the multiplier's binary point
     * @param mask       the tick counter's valid bits (the counter wraps at mask + 1)
     * @param ticks      the timestamp to convert
     * @return nanoseconds since the epoch at {@code ticks}
     */
    public static long toNanos(final long nsec, final long lastCycles, final long frac, final int mult,
        final int shift, final long mask, final long ticks)
    {
        final long m = Integer.toUnsignedLong(mult);
        long delta = (ticks - lastCycles) & mask;
        if (Long.compareUnsigned(delta, mask >>> 1) > 0)
        {
            delta = (lastCycles - ticks) & mask;
            return nsec - ((delta * m - frac) >>> shift);
        }
        return nsec + ((delta * m + frac) >>> shift);
    }

    /** Unmaps the page; later conversions throw IllegalStateException. */
    @Override
    public synchronized void close()
    {
        if (arena.scope().isAlive())
        {
            arena.close();
        }
    }

    @Override
    public String toString()
    {
        return "NicClock(" + context.deviceName() + ")";
    }

    /** mmap/munmap as libmlx5 reaches them (dlsym(RTLD_DEFAULT): an LD_PRELOADed interposer first), errno kept. */
    private static final class Libc
    {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
        private static final long ERRNO_OFFSET = Linker.Option.captureStateLayout()
            .byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        private static final MethodHandle MMAP = LINKER.downcallHandle(global("mmap"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), ERRNO);
        private static final MethodHandle MUNMAP = LINKER.downcallHandle(global("munmap"),
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        private static final MethodHandle GETPAGESIZE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("getpagesize").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
        private static final ThreadLocal<Integer> LAST_ERRNO = ThreadLocal.withInitial(() -> 0);

        private Libc()
        {
        }

        private static MemorySegment global(final String name)
        {
            return GlobalSymbols.require(name);
        }

        static long pageSize()
        {
            try
            {
                return (int) GETPAGESIZE.invokeExact();
            }
            catch (final Throwable t)
            {
                throw new AssertionError(t);
            }
        }

        static long mmap(final long length, final int prot, final int flags, final int fd, final long offset)
        {
            try (Arena a = Arena.ofConfined())
            {
                final MemorySegment state = a.allocate(Linker.Option.captureStateLayout());
                final long address = (long) MMAP.invokeExact(state, 0L, length, prot, flags, fd, offset);
                LAST_ERRNO.set(state.get(JAVA_INT, ERRNO_OFFSET));
                return address;
            }
            catch (final RuntimeException | Error e)
            {
                throw e;
            }
            catch (final Throwable t)
            {
                throw new AssertionError(t);
            }
        }

        static int lastErrno()
        {
            return LAST_ERRNO.get();
        }

        static void munmap(final long address, final long length)
        {
            try
            {
                final int rc = (int) MUNMAP.invokeExact(address, length);
                if (rc != 0)
                {
                    throw new IllegalStateException("munmap of the clock-info page failed");
                }
            }
            catch (final RuntimeException | Error e)
            {
                throw e;
            }
            catch (final Throwable t)
            {
                throw new AssertionError(t);
            }
        }
    }
}
