// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_LONG;
import static io.mlx5j.bindings.CTypes.C_POINTER;

/**
 * The libc calls mlx5j makes, bound like {@link Verbs} (a lazily linked holder per function, method names are the C
 * names, descriptors checked against the installed headers by DowncallSignatureTest). {@link FdPoll} is the wait
 * loop built on {@link #poll}.
 *
 * <p>Thread model: stateless; any thread may call these, with the thread safety the C function itself documents.
 */
public final class Libc
{
    /** EINTR on Linux (asm-generic/errno-base.h): a signal interrupted the call; poll is simply repeated. */
    public static final int EINTR = 4;

    private Libc()
    {
    }

    private static final class poll$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_LONG, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            Linker.nativeLinker().defaultLookup().find("poll").orElseThrow(), DESC, CallState.OPTION);
    }

    /**
     * int poll(struct pollfd *fds, nfds_t nfds, int timeout): the number of ready descriptors, 0 on timeout, -1 plus
     * errno on failure. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param fds the C argument {@code struct pollfd *fds}
     * @param nfds the C argument {@code nfds_t nfds}
     * @param timeout the C argument {@code int timeout}, in milliseconds
     * @return what {@code poll} returns: the number of ready descriptors, 0 on timeout, -1 with errno
     */
    public static int poll(final MemorySegment callState, final MemorySegment fds, final long nfds, final int timeout)
    {
        try
        {
            return (int) poll$.HANDLE.invokeExact(callState, fds, nfds, timeout);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: poll", ex);
        }
    }
}
