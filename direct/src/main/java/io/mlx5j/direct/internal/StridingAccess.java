package io.mlx5j.direct.internal;

import io.mlx5j.raw.StridingRecvQueue;

/**
 * The CQ side of io.mlx5j.raw.StridingRecvQueue, for the poller that decodes its CQEs (io.mlx5j.direct.CqPoller):
 * which WQE the next CQE is for, where a frame is, strides consumed and WQEs released, and the queue's thread group.
 * They were package-private while both classes shared a package; they stay off StridingRecvQueue's public API here.
 * The one implementation is in StridingRecvQueue and registers itself when that class initialises (the JDK's
 * SharedSecrets pattern); the poller keeps {@link #get()} in a {@code static final} field, so C2 calls the
 * implementation directly on the poll path.
 */
public abstract class StridingAccess
{
    private static volatile StridingAccess access;

    /** The implementation. */
    public static StridingAccess get()
    {
        StridingAccess a = access;
        if (a == null)
        {
            initialise(StridingRecvQueue.class);
            a = access;
        }
        return a;
    }

    /** Called once, by StridingRecvQueue. */
    public static void set(final StridingAccess implementation)
    {
        if (access != null)
        {
            throw new IllegalStateException("StridingAccess is set already");
        }
        access = implementation;
    }

    /** Whether the queue's WQ is destroyed (its number may be reused). */
    public abstract boolean dead(StridingRecvQueue queue);

    /** wr_id of the WQE the next CQE is for. */
    public abstract long tailWrId(StridingRecvQueue queue);

    /** Where a frame starting at stride {@code strideIndex} of the oldest WQE is. */
    public abstract long frameAddress(StridingRecvQueue queue, int strideIndex);

    /**
     * A CQE consumed {@code strides} strides from {@code strideIndex} on of the oldest WQE: 1 if that released the
     * WQE, else 0; IllegalStateException for a CQE that does not continue where the last one ended.
     */
    public abstract int consume(StridingRecvQueue queue, int strideIndex, int strides);

    /** An error CQE: the oldest WQE is done whatever its strides. */
    public abstract void releaseOldest(StridingRecvQueue queue);

    /** The queue's thread group. */
    public abstract Ownership ownership(StridingRecvQueue queue);

    /** Moves the queue to another thread group (attach, detach). */
    public abstract void ownership(StridingRecvQueue queue, Ownership ownership);

    /** Runs the class initialiser of {@code type}, which registers the implementation. */
    private static void initialise(final Class<?> type)
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
}
