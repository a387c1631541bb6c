package io.mlx5j.direct.internal;

import io.mlx5j.direct.SendQueue;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WqeWriter;

import java.lang.foreign.MemorySegment;

/**
 * The back doors io.mlx5j.raw.RawSendQueue uses into the {@link SendQueue} it posts through: the ring, its slots and
 * writer (the raw queue writes its own WQE bodies into them), the group ownership for the debug check, the post's
 * one liveness check, and the commit that writes the ctrl segment with the queue's signaling rules and rings. They
 * were package-private while both classes shared a package; they stay off SendQueue's public API here. The one
 * implementation is in SendQueue and registers itself when that class initialises (the JDK's SharedSecrets
 * pattern); callers keep {@link #get()} in a {@code static final} field, so C2 calls the implementation directly.
 */
public abstract class SendQueueAccess
{
    private static volatile SendQueueAccess access;

    /** The implementation. */
    public static SendQueueAccess get()
    {
        SendQueueAccess a = access;
        if (a == null)
        {
            initialise(SendQueue.class);
            a = access;
        }
        return a;
    }

    /** Called once, by SendQueue. */
    public static void set(final SendQueueAccess implementation)
    {
        if (access != null)
        {
            throw new IllegalStateException("SendQueueAccess is set already");
        }
        access = implementation;
    }

    static void initialise(final Class<?> type)
    {
        try
        {
            Class.forName(type.getName(), true, type.getClassLoader());
        }
        catch (final ClassNotFoundException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** The send ring. */
    public abstract MemorySegment ring(SendQueue queue);

    /** The ring's slot counters. */
    public abstract SendRing slots(SendQueue queue);

    /** The queue's WQE writer. */
    public abstract WqeWriter writer(SendQueue queue);

    /** The queue's thread group, for the {@code -Dmlx5j.debug=true} check. */
    public abstract Ownership ownership(SendQueue queue);

    /** The post's one liveness check: the ring's address, or IllegalStateException if the QP is closed. */
    public abstract long liveRing(SendQueue queue);

    /**
     * A WQE written at {@code ctrl} with {@code ds} units: the ctrl segment (written last, with the queue's signaling
     * and fence rules), the slot, the pending doorbell, and a ring for {@code SendFlags.RING}; {@code base} is the
     * post's {@link #liveRing}.
     */
    public abstract void commit(SendQueue queue, long base, long ctrl, int ds, int opcode, long wrId, int flags);
}
