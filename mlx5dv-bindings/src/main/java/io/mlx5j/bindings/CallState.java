// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * errno capture for the downcalls that report failure as NULL or -1 plus errno (ibv_open_device, ibv_reg_mr,
 * ibv_create_qp ...). The JVM itself may clobber errno between the native call and any later read, so the value is
 * captured by the linker right after the call ({@code Linker.Option.captureCallState("errno")}) into a segment the
 * caller passes as the first argument of those bindings.
 */
public final class CallState
{
    /** The linker option that captures errno right after a downcall. */
    public static final Linker.Option OPTION = Linker.Option.captureCallState("errno");
    /** The layout of the captured state ({@code Linker.Option.captureStateLayout()}). */
    public static final StructLayout STATE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private CallState()
    {
    }

    /**
     * A capture segment; one per thread or per call site, reused across calls.
     *
     * @param arena the arena that owns the segment
     * @return the segment
     */
    public static MemorySegment allocate(final Arena arena)
    {
        return arena.allocate(STATE_LAYOUT);
    }

    /**
     * errno as captured by the last call that received this segment.
     *
     * @param state a segment from {@link #allocate}
     * @return the errno
     */
    public static int errno(final MemorySegment state)
    {
        return (int) ERRNO.get(state, 0L);
    }

    /**
     * Stores an errno, as the static inline verbs do ({@code errno = EOPNOTSUPP}) when they fail without a call.
     *
     * @param state a segment from {@link #allocate}
     * @param errno the errno value
     */
    public static void errno(final MemorySegment state, final int errno)
    {
        ERRNO.set(state, 0L, errno);
    }

    /** EOPNOTSUPP on Linux: what verbs.h reports when a provider lacks an extended verb. */
    public static final int EOPNOTSUPP = 95;
}
