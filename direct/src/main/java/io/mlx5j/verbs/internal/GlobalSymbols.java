// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * {@code dlsym(RTLD_DEFAULT, name)}: the definition the dynamic linker gives every library of the process (glibc
 * {@code RTLD_DEFAULT} is 0), so an {@code LD_PRELOAD}ed library comes first, as it does for libmlx5's own calls.
 * Used where mlx5j must reach what libmlx5 reaches (an interposed {@code mmap}) or what only an interposer defines
 * (the emulator's {@code mlx5emu_lend}).
 *
 * <p>Thread model: static; any thread.
 */
public final class GlobalSymbols
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle DLSYM = LINKER.downcallHandle(
        LINKER.defaultLookup().find("dlsym").orElseThrow(),
        FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));

    private GlobalSymbols()
    {
    }

    /**
     * The symbol's address, or {@link MemorySegment#NULL} when no loaded library defines it.
     *
     * @param name the symbol name
     * @return the address, or NULL
     */
    public static MemorySegment find(final String name)
    {
        try (Arena a = Arena.ofConfined())
        {
            return (MemorySegment) DLSYM.invokeExact(MemorySegment.NULL, a.allocateFrom(name));
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

    /**
     * {@link #find}, failing when nothing defines the symbol.
     *
     * @param name the symbol name
     * @return the address
     */
    public static MemorySegment require(final String name)
    {
        final MemorySegment sym = find(name);
        if (sym.address() == 0)
        {
            throw new IllegalStateException("dlsym(RTLD_DEFAULT, " + name + ") found nothing");
        }
        return sym;
    }
}
