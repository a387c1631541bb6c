// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.verbs.internal.GlobalSymbols;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Cycles lent to the emulated ConnectX (emulator/, {@code mlx5emu_lend}) by a poller that found its CQ empty.
 * <p>
 * Why: a real NIC needs no host CPU, but the emulator's device runs on host threads. libmlx5 lends it a pass in every
 * {@code ibv_poll_cq} (the emulator interposes the CQ spinlock); mlx5j never calls libmlx5 on its hot path, so on a
 * 2-core machine with two spinning JVMs every doorbell used to wait for a write fault and a thread wake-up (tens to
 * hundreds of microseconds on a virtual machine). {@link io.mlx5j.direct.CqPoller} calls {@link #lend()} instead when a
 * poll finds nothing: the same bargain, cycles the poller would spend spinning.
 * <p>
 * Only where the emulator library is loaded ({@code dlsym(RTLD_DEFAULT, "mlx5emu_lend")}) and says its engine runs
 * ({@code mlx5emu_lend_enabled}: not with {@code MLX5EMU_ENGINE=off}, as in the benchmarks, nor with
 * {@code MLX5EMU_LEND=0}).
 * Everywhere else {@link #ENABLED} is a false constant and the JIT drops the call: on a real ConnectX nothing changes.
 * <p>
 * Thread-safe: the emulator takes its own lock (a try-lock; a busy engine is left alone).
 */
public final class EmulatorLend
{
    /** Whether empty polls lend cycles. Decided once, at class initialisation. */
    public static final boolean ENABLED;
    private static final MethodHandle LEND;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final MemorySegment lend = GlobalSymbols.find("mlx5emu_lend");
        final MemorySegment enabled = GlobalSymbols.find("mlx5emu_lend_enabled");
        boolean on = false;
        MethodHandle handle = null;
        if (lend.address() != 0 && enabled.address() != 0)
        {
            try
            {
                on = (int) linker.downcallHandle(enabled, FunctionDescriptor.of(JAVA_INT)).invokeExact() != 0;
            }
            catch (final Throwable t)
            {
                throw new ExceptionInInitializerError(t);
            }
            handle = linker.downcallHandle(lend, FunctionDescriptor.ofVoid());
        }
        ENABLED = on;
        LEND = handle;
    }

    private EmulatorLend()
    {
    }

    /** One loan: the emulator runs up to a few engine passes on this thread if its engine is free. */
    public static void lend()
    {
        try
        {
            LEND.invokeExact();
        }
        catch (final Throwable t)
        {
            throw new AssertionError(t);
        }
    }
}
