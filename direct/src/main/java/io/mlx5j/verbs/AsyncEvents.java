// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.FdPoll;
import io.mlx5j.bindings.IbvAsyncEvent;
import io.mlx5j.bindings.IbvQp;
import io.mlx5j.bindings.Libc;
import io.mlx5j.bindings.Pollfd;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.memory.AddressSpace;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static io.mlx5j.bindings.CTypes.C_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The asynchronous events of a {@link Context} ({@code ibv_get_async_event} on its async fd): errors of a QP that no
 * completion can report ({@link AsyncEvent.Type#QP_FATAL}, {@code QP_ACCESS_ERR}, {@code QP_REQ_ERR}),
 * {@code QP_LAST_WQE_REACHED} of a QP on an SRQ, {@code SRQ_LIMIT_REACHED}, {@code CQ_ERR}, and port and device
 * events ({@code PORT_ERR}, {@code PORT_ACTIVE}, {@code DEVICE_FATAL}). Get it with {@link Context#asyncEvents()}.
 * <p>
 * Three ways to wait, one event loop:
 * <ul>
 *   <li>{@link #poll(AsyncEvent)} and {@link #poll(Handler, int)} never block: they look at the fd (poll(2) with a zero
 *       timeout) and read only what is there. Put {@link #fd()} into your own poll/epoll set and call them when it is
 *       readable (level-triggered: readable while an event waits), or call them from a loop that does other work.
 *       Neither allocates once the objects the events name have been seen.</li>
 *   <li>{@link #await(Duration)} blocks up to a timeout, for simple programs.</li>
 * </ul>
 * <b>Acknowledgement.</b> libibverbs counts every event {@code ibv_get_async_event} returns against the QP, CQ or SRQ
 * it names, and {@code ibv_destroy_qp}/{@code _cq}/{@code _srq} wait until as many {@code ibv_ack_async_event} calls
 * have been made: a destroy after an event that was read and never acknowledged hangs for ever. So this class
 * acknowledges each event itself, right after copying it into the {@link AsyncEvent} view and before any handler
 * sees it. A handler may therefore close the object the event names, which is the usual reaction to
 * {@code QP_LAST_WQE_REACHED}; and closing a QP, CQ or SRQ never waits on this class. Events never read are no
 * obstacle either: the kernel drops an object's unread events when it is destroyed.
 * <p>
 * <b>Teardown of a QP on an SRQ</b> (the IBA's rule; nothing else guarantees that no receive WQE of the SRQ is still
 * being consumed by it): move the QP to ERR ({@link QueuePair#toError()}), wait for its
 * {@code QP_LAST_WQE_REACHED}, poll its CQ empty (its flushed completions), then close it.
 * <p>
 * <b>Threads.</b> Any thread may call any method; each event goes to exactly one caller. Reading is serialised
 * inside, and {@link #poll(Handler, int)} runs handlers one at a time (it holds a lock of its own while they run, never
 * the Context's). The view passed to a handler is this object's own and is valid only during the call. Nothing else
 * in the process may read the context's async fd (through {@link Context#pointer()} and libibverbs), or a poll could
 * find the fd readable and then block on an event another reader took. Close the context only when no thread is in
 * {@link #await}: its wait ends at its timeout at the latest.
 */
public final class AsyncEvents
{
    /** Receives events from {@link #poll(Handler, int)}. */
    @FunctionalInterface
    public interface Handler
    {
        /**
         * One event, already acknowledged.
         *
         * @param event valid only during this call: copy what you keep
         */
        void onEvent(AsyncEvent event);
    }

    /** EAGAIN (asm-generic/errno-base.h): nothing to read on a non-blocking fd. */
    private static final int EAGAIN = 11;

    private final Context context;
    private final int fd;
    /** Native memory of the read: the event, errno capture and the pollfd, used under {@code readLock} only. */
    private final Arena arena = Arena.ofShared();
    private final MemorySegment event;
    private final MemorySegment state;
    private final MemorySegment pollfd;
    private final Object readLock = new Object();
    private final Object dispatchLock = new Object();
    private final AsyncEvent dispatchView = new AsyncEvent();
    private boolean released;

    AsyncEvents(final Context context)
    {
        this.context = context;
        this.fd = context.asyncFd();
        this.event = arena.allocate(IbvAsyncEvent.LAYOUT);
        this.state = CallState.allocate(arena);
        this.pollfd = arena.allocate(Pollfd.LAYOUT);
        pollfd.set(C_INT, Pollfd.FD_OFFSET, fd);
    }

    /** {@return the context's async fd, for a poll/epoll set: readable while an event waits} */
    public int fd()
    {
        context.ensureOpen();
        return fd;
    }

    /** {@return the context whose events these are} */
    public Context context()
    {
        return context;
    }

    /**
     * Reads one event into {@code into} if one is waiting; never blocks.
     *
     * @param into the view to read the event into
     * @return false if none was waiting
     * @throws VerbsException        if ibv_get_async_event fails for another reason than an empty queue
     * @throws IllegalStateException if the context is closed
     */
    public boolean poll(final AsyncEvent into)
    {
        synchronized (readLock)
        {
            context.ensureOpen();
            if (released || !readable())
            {
                return false;
            }
            if (Verbs.ibv_get_async_event(state, context.handle, event) != 0)
            {
                final int errno = CallState.errno(state);
                if (errno == EAGAIN || errno == Libc.EINTR)
                {
                    return false;
                }
                throw new VerbsException("ibv_get_async_event", errno, context.deviceName());
            }
            try
            {
                fill(into);
            }
            finally
            {
                Verbs.ibv_ack_async_event(event);
            }
        }
        resolveNumbers(into);
        return true;
    }

    /**
     * Hands up to {@code limit} waiting events to {@code handler}, one at a time, in the order the device raised
     * them; never blocks. Each is acknowledged before the handler runs (see the class comment).
     *
     * @param handler called once per event
     * @param limit the most events to hand out
     * @return how many events were handled
     */
    public int poll(final Handler handler, final int limit)
    {
        if (limit < 0)
        {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
        int n = 0;
        synchronized (dispatchLock)
        {
            while (n < limit && poll(dispatchView))
            {
                n++;
                handler.onEvent(dispatchView);
            }
        }
        return n;
    }

    /**
     * Waits up to {@code timeout} for the next event and returns it in a new view (for simple programs; an event
     * loop reuses one with {@link #await(AsyncEvent, Duration)} or polls).
     *
     * @param timeout how long to wait at most
     * @return the event, or null when none came in time
     */
    public AsyncEvent await(final Duration timeout)
    {
        final AsyncEvent e = new AsyncEvent();
        return await(e, timeout) ? e : null;
    }

    /**
     * Waits up to {@code timeout} for the next event and reads it into {@code into}.
     *
     * @param into the view to read the event into
     * @param timeout how long to wait at most
     * @return false when none came in time
     */
    public boolean await(final AsyncEvent into, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            if (poll(into))
            {
                return true;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                return false;
            }
            FdPoll.readable(fd(), left);
        }
    }

    /** Whether an event waits: poll(2) of the fd with a zero timeout, through the preallocated pollfd. */
    private boolean readable()
    {
        pollfd.set(JAVA_SHORT, Pollfd.EVENTS_OFFSET, Pollfd.POLLIN);
        pollfd.set(JAVA_SHORT, Pollfd.REVENTS_OFFSET, (short) 0);
        final int rc = Libc.poll(state, pollfd, 1L, 0);
        return rc > 0 && (pollfd.get(JAVA_SHORT, Pollfd.REVENTS_OFFSET) & Pollfd.POLLIN) != 0;
    }

    /**
     * Copies the event into the view, before it is acknowledged (the element pointer is read as a long: a pointer
     * get would allocate a segment per event): until then libibverbs keeps the object it names
     * alive (its destroy waits for the acknowledgement), so its struct may be read. Takes no lock but readLock, so
     * that a thread closing a QP under the Context's lock is never waited for while its acknowledgement is pending.
     */
    private void fill(final AsyncEvent into)
    {
        final int type = event.get(C_INT, IbvAsyncEvent.EVENT_TYPE_OFFSET);
        into.reset(context, type);
        final AsyncEvent.Type t = into.type;
        if (t == null)
        {
            return;
        }
        switch (t.element())
        {
            case PORT -> into.port = event.get(C_INT, IbvAsyncEvent.ELEMENT_OFFSET);
            case QP ->
            {
                final long qp = event.get(JAVA_LONG, IbvAsyncEvent.ELEMENT_OFFSET);
                into.element = qp;
                into.qpn = AddressSpace.ALL.get(C_INT, qp + IbvQp.QP_NUM_OFFSET);
                into.queuePair = context.objectAt(qp) instanceof QueuePair q ? q : null;
            }
            case CQ ->
            {
                into.element = event.get(JAVA_LONG, IbvAsyncEvent.ELEMENT_OFFSET);
                into.completionQueue = context.objectAt(into.element) instanceof CompletionQueue c ? c : null;
            }
            case SRQ ->
            {
                into.element = event.get(JAVA_LONG, IbvAsyncEvent.ELEMENT_OFFSET);
                into.sharedReceiveQueue = context.objectAt(into.element) instanceof SharedReceiveQueue s ? s : null;
            }
            case WQ -> into.element = event.get(JAVA_LONG, IbvAsyncEvent.ELEMENT_OFFSET);
        }
    }

    /**
     * The CQ and SRQ numbers, which only libmlx5 knows (mlx5dv_init_obj, cached by the object's {@code ring()}): after
     * the acknowledgement, since the first {@code ring()} of an object takes the Context's lock.
     */
    private void resolveNumbers(final AsyncEvent into)
    {
        if (!context.isMlx5())
        {
            return;
        }
        try
        {
            if (into.completionQueue != null && !into.completionQueue.isClosed())
            {
                into.cqn = into.completionQueue.ring().cqn();
            }
            if (into.sharedReceiveQueue != null && !into.sharedReceiveQueue.isClosed())
            {
                into.srqn = into.sharedReceiveQueue.ring().srqn();
            }
        }
        catch (final IllegalStateException closedMeanwhile)
        {
            // the object was closed after the event was acknowledged: it has no number any more
        }
    }

    /** Frees the native memory; called by the Context's close once every object under it is closed. */
    void release()
    {
        synchronized (readLock)
        {
            if (!released)
            {
                released = true;
                arena.close();
            }
        }
    }

    @Override
    public String toString()
    {
        return "AsyncEvents(" + context.deviceName() + ", fd " + fd + ")";
    }
}
