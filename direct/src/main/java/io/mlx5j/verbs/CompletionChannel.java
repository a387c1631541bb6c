// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.FdPoll;
import io.mlx5j.bindings.IbvCompChannel;
import io.mlx5j.bindings.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): CQs created with it raise an event when armed and a
 * CQE arrives. {@link #awaitEvent()} blocks in {@code ibv_get_cq_event}; every event must be acknowledged
 * ({@link CompletionQueue#ackEvents()}), which {@link CompletionQueue#close()} also does.
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class CompletionChannel extends NativeResource
{
    private CompletionChannel(final Context context, final Arena arena, final MemorySegment handle)
    {
        super(context, arena, handle, List.of());
    }

    static CompletionChannel create(final Context context)
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment raw = Verbs.ibv_create_comp_channel(state, context.handle);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_create_comp_channel", CallState.errno(state), context.deviceName());
            }
            return new CompletionChannel(context, arena,
                raw.reinterpret(IbvCompChannel.LAYOUT.byteSize(), arena, null));
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** {@return the file descriptor that becomes readable when an event is pending (for poll/epoll)} */
    public int fd()
    {
        ensureOpen();
        return handle.get(CTypes.C_INT, IbvCompChannel.FD_OFFSET);
    }

    /**
     * Blocks until a CQ of this channel has an event and returns it (not yet acknowledged). The CQ must have been
     * armed ({@link CompletionQueue#requestNotify(boolean)} or the direct arm doorbell) before the CQE arrived.
     *
     * @return the CQ the event is for
     */
    public CompletionQueue awaitEvent()
    {
        ensureOpen();
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(tmp);
            final MemorySegment cqOut = tmp.allocate(CTypes.C_POINTER);
            final MemorySegment ctxOut = tmp.allocate(CTypes.C_POINTER);
            if (Verbs.ibv_get_cq_event(state, handle, cqOut, ctxOut) != 0)
            {
                throw new VerbsException("ibv_get_cq_event", CallState.errno(state));
            }
            final long cqAddress = cqOut.get(CTypes.C_POINTER, 0).address();
            final CompletionQueue cq = owner.cqAt(cqAddress);
            if (cq == null)
            {
                throw new IllegalStateException("event for a CQ mlx5j does not know: 0x" + Long.toHexString(cqAddress));
            }
            cq.eventReceived();
            return cq;
        }
    }

    /**
     * Like {@link #awaitEvent()}, but gives up after {@code timeoutNanos}: returns null if no event arrived (the fd is
     * polled first, so ibv_get_cq_event never blocks past the deadline).
     *
     * @param timeoutNanos how long to wait at most, in nanoseconds
     * @return the CQ the event is for, or null on timeout
     */
    public CompletionQueue awaitEvent(final long timeoutNanos)
    {
        ensureOpen();
        return FdPoll.readable(fd(), timeoutNanos) ? awaitEvent() : null;
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return Verbs.ibv_destroy_comp_channel(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_destroy_comp_channel";
    }

    @Override
    public String toString()
    {
        return "CompletionChannel(" + owner.deviceName() + (isClosed() ? ", closed)" : ")");
    }
}
