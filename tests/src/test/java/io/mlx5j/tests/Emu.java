package io.mlx5j.tests;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The emulator's test hooks, found in the preloaded libmlx5emu.so: the strict-mode violation counter and
 * {@code mlx5emu_debug_qp} (src/mlx5emu_debug.h), from which the parity tests take the QP's user index.
 */
final class Emu
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle VIOLATIONS = LINKER.downcallHandle(
        find("mlx5emu_strict_violations"), FunctionDescriptor.of(ValueLayout.JAVA_LONG));
    private static final MethodHandle DEBUG_QP = LINKER.downcallHandle(
        find("mlx5emu_debug_qp"),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    /** struct mlx5emu_debug_qp: qpn, type, state, uidx are its first four uint32 members. */
    private static final long DEBUG_QP_UIDX_OFFSET = 12;
    private static final long DEBUG_QP_BYTES = 512;

    private Emu()
    {
    }

    private static MemorySegment find(final String name)
    {
        // the library is LD_PRELOADed into this JVM: look it up by the preloaded path (dlopen returns the same handle)
        final String preload = System.getenv("LD_PRELOAD");
        if (preload != null)
        {
            for (final String lib : preload.split("[: ]"))
            {
                if (lib.contains("mlx5emu"))
                {
                    return SymbolLookup.libraryLookup(java.nio.file.Path.of(lib), Arena.global()).find(name)
                        .orElseThrow(() -> new IllegalStateException(name + " not in " + lib));
                }
            }
        }
        throw new IllegalStateException(name + ": libmlx5emu.so is not preloaded (LD_PRELOAD=" + preload + ")");
    }

    static long strictViolations()
    {
        try
        {
            return (long) VIOLATIONS.invokeExact();
        }
        catch (final Throwable t)
        {
            throw new AssertionError(t);
        }
    }

    /** The user index libmlx5 gave the QP (CQE version 1 puts it in srqn_uidx). */
    static int uidx(final int qpn)
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment out = tmp.allocate(DEBUG_QP_BYTES, 8);
            final int rc = (int) DEBUG_QP.invokeExact(qpn, out);
            if (rc != 0)
            {
                throw new IllegalStateException("mlx5emu_debug_qp(0x" + Integer.toHexString(qpn) + ") = " + rc);
            }
            return out.get(ValueLayout.JAVA_INT, DEBUG_QP_UIDX_OFFSET);
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
