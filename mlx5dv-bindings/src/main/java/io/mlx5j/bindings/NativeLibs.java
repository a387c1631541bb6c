// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The two shared libraries mlx5j binds, by SONAME so that the dynamic loader returns the very copy libibverbs has
 * already loaded as its mlx5 provider (libibverbs/libmlx5-rdmav34.so links to libmlx5.so.1): mlx5dv_init_obj only
 * accepts objects created by its own copy. Symbols resolve through dlsym, which yields the default version
 * ({@code ibv_create_qp@@IBVERBS_1.1}, {@code mlx5dv_init_obj@@MLX5_1.2}), as a C program linked today would.
 * <p>
 * Loaded once into the global arena: the libraries stay mapped for the life of the JVM.
 *
 * <p>Thread model: static and immutable; any thread.
 */
public final class NativeLibs
{
    /** libibverbs (infiniband/verbs.h), by its soname. */
    public static final String LIBIBVERBS = "libibverbs.so.1";
    /** libmlx5 (infiniband/mlx5dv.h), by its soname. */
    public static final String LIBMLX5 = "libmlx5.so.1";
    /** librdmacm (rdma/rdma_cma.h); it links libibverbs.so.1, so its verbs contexts are the ones mlx5j's calls see. */
    public static final String LIBRDMACM = "librdmacm.so.1";

    private static final Linker LINKER = Linker.nativeLinker();

    private NativeLibs()
    {
    }

    private static final class Ibverbs
    {
        static final SymbolLookup LOOKUP = SymbolLookup.libraryLookup(LIBIBVERBS, Arena.global());
    }

    private static final class Mlx5
    {
        static final SymbolLookup LOOKUP = SymbolLookup.libraryLookup(LIBMLX5, Arena.global());
    }

    private static final class RdmacmLib
    {
        static final SymbolLookup LOOKUP = SymbolLookup.libraryLookup(LIBRDMACM, Arena.global());
    }

    /**
     * Address of an exported librdmacm function; fails with the symbol name when it is absent.
     *
     * @param name the C symbol name
     * @return the symbol's address
     */
    public static MemorySegment rdmacm(final String name)
    {
        return RdmacmLib.LOOKUP.find(name)
            .orElseThrow(() -> new UnsatisfiedLinkError(name + " not found in " + LIBRDMACM));
    }

    /**
     * Address of an exported libibverbs function; fails with the symbol name when it is absent.
     *
     * @param name the C symbol name
     * @return the symbol's address
     */
    public static MemorySegment ibverbs(final String name)
    {
        return Ibverbs.LOOKUP.find(name)
            .orElseThrow(() -> new UnsatisfiedLinkError(name + " not found in " + LIBIBVERBS));
    }

    /**
     * Address of an exported libmlx5 function; fails with the symbol name when it is absent.
     *
     * @param name the C symbol name
     * @return the symbol's address
     */
    public static MemorySegment mlx5(final String name)
    {
        return Mlx5.LOOKUP.find(name)
            .orElseThrow(() -> new UnsatisfiedLinkError(name + " not found in " + LIBMLX5));
    }

    /**
     * Downcall to a fixed address (an exported symbol).
     *
     * @param address the function's address
     * @param fd the function's C signature
     * @param options linker options ({@link CallState#OPTION}, {@code critical})
     * @return the method handle
     */
    public static MethodHandle downcall(final MemorySegment address, final FunctionDescriptor fd,
        final Linker.Option... options)
    {
        return LINKER.downcallHandle(address, fd, options);
    }

    /**
     * Downcall whose first argument is the target address: for the function pointers of ibv_context_ops,
     * verbs_context and ibv_qp_ex that verbs.h's static inline functions call.
     *
     * @param fd the function's C signature
     * @param options linker options ({@link CallState#OPTION}, {@code critical})
     * @return the method handle
     */
    public static MethodHandle downcall(final FunctionDescriptor fd, final Linker.Option... options)
    {
        return LINKER.downcallHandle(fd, options);
    }
}
