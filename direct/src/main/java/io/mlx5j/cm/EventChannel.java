// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.FdPoll;
import io.mlx5j.bindings.RdmaCmEvent;
import io.mlx5j.bindings.RdmaEventChannel;
import io.mlx5j.bindings.Rdmacm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;

/**
 * A librdmacm event channel ({@code struct rdma_event_channel}): every {@link CmId} created on it reports its events
 * here. Two ways to consume them, not to be mixed on one channel:
 * <ul>
 *   <li><b>Event loop.</b> {@link #fd()} goes into the application's poll/epoll set; {@link #poll(CmEventHandler, int)}
 *       never blocks and hands each pending event to the handler (the Aeron {@code Subscription.poll} shape).</li>
 *   <li><b>Blocking.</b> {@link CmId#awaitEvent(Duration)}, and the {@link CmConnection} / {@link CmListener} built
 *       on it, read the channel and queue each event on the id it belongs to, so several ids can share one channel
 *       and each waits only for its own, with a timeout.</li>
 * </ul>
 * Either way every event is copied into a {@link CmEvent} and acknowledged at once, so {@code rdma_destroy_id}
 * never waits on an unacknowledged event. On a CONNECT_RESPONSE for an id whose QP mlx5j manages, the channel moves
 * the QP to RTR and RTS and calls {@code rdma_establish} before reporting ESTABLISHED, as librdmacm does for QPs it
 * created itself; on DISCONNECTED it moves the QP to ERR so posted work flushes and answers the peer's disconnect
 * request (a DREP), so a peer blocked in its own disconnect is released as soon as this side reads the event.
 * <p>
 * Closing the channel destroys every id still open on it.
 */
public final class EventChannel implements AutoCloseable
{
    /** How long one blocking waiter holds the read lock per look, so waiters on other ids get their turn. */
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final Arena arena;
    private final MemorySegment handle;
    private final MemorySegment callState;
    private final MemorySegment eventOut;
    private final ReentrantLock readLock = new ReentrantLock();
    final Map<Long, CmId> ids = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Owners of a channel mlx5j made (a listener and the connections it accepted); the last release closes it. */
    private int owners = 1;

    private EventChannel(final Arena arena, final MemorySegment handle)
    {
        this.arena = arena;
        this.handle = handle;
        this.callState = CallState.allocate(arena);
        this.eventOut = arena.allocate(C_POINTER);
    }

    /**
     * {@code rdma_create_event_channel}: opens /dev/infiniband/rdma_cm.
     *
     * @return the channel; close it to destroy it and every id on it
     * @throws CmCallException if {@code rdma_create_event_channel} fails (e.g. no rdma_cm device file)
     */
    public static EventChannel create()
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment raw = Rdmacm.rdma_create_event_channel(state);
            if (raw.address() == 0)
            {
                throw new CmCallException("create event channel", "rdma_create_event_channel", CallState.errno(state));
            }
            return new EventChannel(arena, raw.reinterpret(RdmaEventChannel.LAYOUT.byteSize()));
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * The fd that becomes readable when an event is pending.
     *
     * @return the file descriptor, for poll/epoll; owned by the channel
     * @throws IllegalStateException if the channel is closed
     */
    public int fd()
    {
        ensureOpen();
        return handle.get(C_INT, RdmaEventChannel.FD_OFFSET);
    }

    /**
     * {@code rdma_create_id} on this channel.
     *
     * @param portSpace TCP for RC ids, UDP / IPOIB for UD ids
     * @return the id, reporting to this channel
     * @throws IllegalStateException if the channel is closed
     * @throws CmCallException if {@code rdma_create_id} fails
     */
    public CmId createId(final PortSpace portSpace)
    {
        ensureOpen();
        return CmId.create(this, portSpace);
    }

    /**
     * Hands up to {@code limit} pending events to {@code handler} without blocking; returns how many.
     *
     * @param handler called on the calling thread for each event, after it was acknowledged
     * @param limit   the most events to hand over, positive
     * @return how many events were handed over, 0..limit
     * @throws IllegalArgumentException if {@code limit} is not positive
     * @throws IllegalStateException if the channel is closed
     * @throws CmCallException if reading or acknowledging an event fails
     */
    public int poll(final CmEventHandler handler, final int limit)
    {
        return poll(handler, limit, Duration.ZERO);
    }

    /**
     * Like {@link #poll(CmEventHandler, int)}, but waits up to {@code wait} for the first event.
     *
     * @param handler called on the calling thread for each event, after it was acknowledged
     * @param limit   the most events to hand over, positive
     * @param wait    how long to block for the first event; later ones are taken only if already pending
     * @return how many events were handed over, 0..limit
     * @throws IllegalArgumentException if {@code limit} is not positive
     * @throws IllegalStateException if the channel is closed
     * @throws CmCallException if reading or acknowledging an event fails
     */
    public int poll(final CmEventHandler handler, final int limit, final Duration wait)
    {
        ensureOpen();
        if (limit <= 0)
        {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        int handled = 0;
        long timeout = wait.toNanos();
        while (handled < limit)
        {
            final CmEvent event;
            readLock.lock();
            try
            {
                event = readOne(timeout);
            }
            finally
            {
                readLock.unlock();
            }
            if (event == null)
            {
                break;
            }
            handler.onEvent(event);
            handled++;
            timeout = 0;
        }
        return handled;
    }

    /**
     * The next event of {@code id}, or null when {@code timeoutNanos} pass without one; a zero timeout still reads
     * what is already pending.
     */
    CmEvent awaitFor(final CmId id, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true)
        {
            final long left = deadline - System.nanoTime();
            readLock.lock();
            try
            {
                ensureOpen();
                final CmEvent mine = id.dequeue();   // queued by an earlier read, ours or another waiter's
                if (mine != null)
                {
                    return mine;
                }
                final CmEvent event = readOne(Math.max(0, Math.min(left, SLICE_NANOS)));
                if (event != null)
                {
                    final CmId owner = event.type() == CmEventType.CONNECT_REQUEST && event.listenId() != null
                        ? event.listenId() : event.id();
                    if (owner == id)
                    {
                        return event;
                    }
                    owner.enqueue(event);
                    continue;   // more may be pending: look again before the deadline counts
                }
            }
            finally
            {
                readLock.unlock();
            }
            if (left <= 0)
            {
                return null;
            }
        }
    }

    /** Reads, processes and acknowledges one event; null if none came within the timeout. Under readLock. */
    private CmEvent readOne(final long timeoutNanos)
    {
        if (!FdPoll.readable(fd(), timeoutNanos))
        {
            return null;
        }
        if (Rdmacm.rdma_get_cm_event(callState, handle, eventOut) != 0)
        {
            throw new CmCallException("read CM event", "rdma_get_cm_event", CallState.errno(callState));
        }
        final MemorySegment raw = eventOut.get(C_POINTER, 0).reinterpret(RdmaCmEvent.LAYOUT.byteSize());
        try
        {
            final int type = raw.get(C_INT, RdmaCmEvent.EVENT_OFFSET);
            final long idAddress = raw.get(C_POINTER, RdmaCmEvent.ID_OFFSET).address();
            final long listenAddress = raw.get(C_POINTER, RdmaCmEvent.LISTEN_ID_OFFSET).address();
            final CmId listener = listenAddress == 0 ? null : ids.get(listenAddress);
            CmId id = ids.get(idAddress);
            if (id == null && type == RdmaCmEvent.RDMA_CM_EVENT_CONNECT_REQUEST && listener != null)
            {
                // librdmacm made a new id for the request; it is ours to accept or reject (and to destroy)
                id = CmId.adopt(this, raw.get(C_POINTER, RdmaCmEvent.ID_OFFSET), listener.portSpace());
            }
            if (id == null)
            {
                throw new IllegalStateException("CM event " + type + " for an id this channel does not know (0x"
                    + Long.toHexString(idAddress) + ")");
            }
            final CmEvent event = CmEvent.copy(raw, id, listener, id.portSpace().isDatagram());
            return id.onEvent(event);
        }
        finally
        {
            if (Rdmacm.rdma_ack_cm_event(callState, raw) != 0)
            {
                throw new CmCallException("acknowledge CM event", "rdma_ack_cm_event", CallState.errno(callState));
            }
        }
    }

    /** One more owner of a channel mlx5j made for a listener: a connection accepted from it. */
    synchronized void retain()
    {
        ensureOpen();
        owners++;
    }

    /** An owner is done; the last one closes the channel. */
    void release()
    {
        final boolean last;
        synchronized (this)
        {
            last = --owners == 0;
        }
        if (last)
        {
            close();
        }
    }

    void register(final CmId id)
    {
        ids.put(id.address(), id);
    }

    void unregister(final CmId id)
    {
        ids.remove(id.address());
    }

    MemorySegment handle()
    {
        return handle;
    }

    /**
     * Whether {@link #close()} ran (directly, or with the last connection of a listener's channel).
     *
     * @return true once closed
     */
    public boolean isClosed()
    {
        return closed;
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("event channel is closed");
        }
    }

    /** Destroys the ids still open on the channel (newest first), then the channel. */
    @Override
    public void close()
    {
        readLock.lock();
        try
        {
            if (closed)
            {
                return;
            }
            final List<CmId> open = new ArrayList<>(ids.values());
            open.sort((a, b) -> Long.compare(b.serial(), a.serial()));
            for (final CmId id : open)
            {
                id.close();
            }
            closed = true;
            Rdmacm.rdma_destroy_event_channel(handle);
            arena.close();
        }
        finally
        {
            readLock.unlock();
        }
    }

    @Override
    public String toString()
    {
        return closed ? "EventChannel(closed)" : "EventChannel(fd " + fd() + ")";
    }
}
