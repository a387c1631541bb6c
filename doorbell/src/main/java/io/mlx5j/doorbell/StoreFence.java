// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.mlx5j.memory.InternalUnsafe;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An x86-64 {@code sfence} from Java, for {@link Dma#wcStart()} and {@link Dma#wcFlush()}: rdma-core's
 * {@code mmio_wc_start}/{@code mmio_flush_writes} on x86-64 (util/udma_barrier.h) and UCX's
 * {@code ucs_memory_bus_store_fence} are exactly this instruction.
 *
 * <p>Java has no sfence. The JDK emits one in exactly one place: the post-sync of
 * {@code jdk.internal.misc.Unsafe.writebackMemory} (JEP 352, persistent memory), which HotSpot compiles on x86-64
 * to a bare {@code sfence} when the CPU flushes cache lines with {@code clflushopt} or {@code clwb}
 * ({@code MacroAssembler::cache_wbsync}; with plain {@code clflush} it emits nothing, because clflush is ordered).
 * A write-back of zero bytes flushes no line and leaves only that {@code sfence}. The call goes through a constant
 * {@link MethodHandle}, which C2 inlines, so no class here is compiled against {@code jdk.internal.misc}.
 *
 * <p>Measured on the build machine (AMD EPYC, JDK 25.0.3): a store, the fence and a store in a loop take 1.5 ns with
 * this sfence and 7.1 ns with {@link VarHandle#fullFence()} ({@code lock addl}); the locked instruction waits for the
 * store buffer to drain, which sfence does not make later loads wait for.
 *
 * <p>Enabled only when all hold, so no JVM ever fails for lack of it; otherwise {@link Dma} uses
 * {@link VarHandle#fullFence()}, which orders WC stores too (see {@link Dma}):
 * <ul>
 *   <li>the JVM was started with {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED};</li>
 *   <li>{@code os.arch} is {@code amd64} and {@code /proc/cpuinfo} lists {@code clflushopt} or {@code clwb} (the
 *       condition under which HotSpot emits the sfence: without it the call would be no fence at all);</li>
 *   <li>C2 compiles (not {@code -Xint}, {@code -XX:-UseCompiler} or {@code -XX:TieredStopAtLevel} below 4):
 *       HotSpot generates the write-back stubs with C2's, and without them the post-sync jumps to a null stub (a
 *       SIGSEGV at pc 0, measured with both flags on JDK 25.0.3), which no first call could survive to report;</li>
 *   <li>the JVM has write-back enabled (a first call of the zero-length write-back succeeds);</li>
 *   <li>the system property {@code mlx5j.doorbell.sfence} is not {@code false}.</li>
 * </ul>
 */
final class StoreFence
{
    /** Whether {@link #sfence()} may be called. */
    static final boolean ENABLED;
    private static final MethodHandle WRITEBACK_NOTHING;

    static
    {
        final MethodHandle writeback = probe();
        ENABLED = writeback != null;
        WRITEBACK_NOTHING = writeback;
    }

    private StoreFence()
    {
    }

    /**
     * {@code sfence}, with compiler fences on both sides so that C2 keeps every earlier store above it and every later
     * store below it (its intrinsic is pinned on raw memory only). Only when {@link #ENABLED}.
     */
    static void sfence()
    {
        VarHandle.releaseFence();
        try
        {
            WRITEBACK_NOTHING.invokeExact();
        }
        catch (final Throwable ex)
        {
            // Unreachable: a zero-length write-back at an aligned address throws nothing once the probe ran it.
            throw new IllegalStateException("sfence via Unsafe.writebackMemory failed", ex);
        }
        VarHandle.releaseFence();
    }

    private static MethodHandle probe()
    {
        if ("false".equalsIgnoreCase(System.getProperty("mlx5j.doorbell.sfence", "true"))
            || !"amd64".equals(System.getProperty("os.arch"))
            || !cpuFlushesWithSfence()
            || !c2Compiles())
        {
            return null;
        }
        final MethodHandle writeback =
            InternalUnsafe.bound("writebackMemory", MethodType.methodType(void.class, long.class, long.class));
        if (writeback == null)
        {
            return null;    // not exported to mlx5j
        }
        // Address 64, length 0: no cache line is written back (the loop runs zero times), only the post-sync.
        final MethodHandle nothing = MethodHandles.insertArguments(writeback, 0, 64L, 0L);
        try
        {
            nothing.invokeExact();  // throws "writebackMemory not enabled!" where the JVM has no write-back
            return nothing;
        }
        catch (final Throwable ex)
        {
            return null;
        }
    }

    /** Whether this JVM runs C2, from its flags; false when they cannot be read. */
    private static boolean c2Compiles()
    {
        try
        {
            final HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (!"true".equals(vm.getVMOption("UseCompiler").getValue()))
            {
                return false;   // -Xint
            }
            // TieredStopAtLevel counts only with tiered compilation: -XX:-TieredCompilation runs C2 alone
            return !"true".equals(vm.getVMOption("TieredCompilation").getValue())
                || Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue()) >= 4;
        }
        catch (final RuntimeException | LinkageError ex)
        {
            return false;
        }
    }

    private static boolean cpuFlushesWithSfence()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/cpuinfo")))
            {
                if (line.startsWith("flags"))
                {
                    final String flags = line + " ";
                    return flags.contains(" clflushopt ") || flags.contains(" clwb ");
                }
            }
            return false;
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }
}
