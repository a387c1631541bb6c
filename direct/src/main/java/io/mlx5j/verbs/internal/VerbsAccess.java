// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs.internal;

import io.mlx5j.verbs.NativeResource;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What the data path (io.mlx5j.direct, io.mlx5j.raw) may do to control-path objects beyond their public API, so that
 * none of it has to be public on them: register a {@link CloseGuard}, take the lock creation and close run under,
 * and own a libibverbs object of its own by the control path's lifetime rules. The one implementation lives in
 * io.mlx5j.verbs (NativeResource) and registers itself when that class initialises, as the JDK's SharedSecrets do.
 * Setup paths only.
 *
 * <p>Thread model: set once while io.mlx5j.verbs initialises; its methods run on the setup paths, under the Context's
 * lock where they say so.
 */
public abstract class VerbsAccess
{
    private static volatile VerbsAccess access;

    /** For the one implementation, in io.mlx5j.verbs. */
    public VerbsAccess()
    {
    }

    /** {@return the implementation; callers keep it in a {@code static final} field} */
    public static VerbsAccess get()
    {
        VerbsAccess a = access;
        if (a == null)
        {
            try
            {
                // its static initialiser calls set(); any NativeResource that exists has run it already
                Class.forName(NativeResource.class.getName(), true, NativeResource.class.getClassLoader());
            }
            catch (final ClassNotFoundException ex)
            {
                throw new IllegalStateException(ex);
            }
            a = access;
        }
        return a;
    }

    /**
     * Called once, by io.mlx5j.verbs.
     *
     * @param implementation the implementation
     */
    public static void set(final VerbsAccess implementation)
    {
        if (access != null)
        {
            throw new IllegalStateException("VerbsAccess is set already");
        }
        access = implementation;
    }

    /**
     * {@code guard} runs before {@code resource} is destroyed, as long as the resource lives.
     *
     * @param resource the control-path object
     * @param guard the guard
     */
    public abstract void addCloseGuard(NativeResource resource, CloseGuard guard);

    /**
     * {@code listener} follows {@code qp}'s moves to RESET and (RAW_PACKET) RTR, as long as the QP lives: see
     * {@link QpStateListener}.
     *
     * @param qp       the QP whose state changes are followed
     * @param listener called on the thread that changes the state
     */
    public abstract void addStateListener(QueuePair qp, QpStateListener listener);

    /**
     * Tells every listener of {@code qp} ({@link #addStateListener}) that a close was requested: any thread, no lock.
     *
     * @param qp the QP
     */
    public abstract void closeRequested(QueuePair qp);

    /**
     * The lock creation and close of {@code resource} run under (its Context).
     *
     * @param resource the control-path object
     * @return the lock object
     */
    public abstract Object lock(NativeResource resource);

    /**
     * A resource over {@code handle} (scoped to {@code arena}) that depends on {@code parent}, belongs to its Context
     * and is destroyed by {@code object}. The caller's object holds it and hands out its {@code close()},
     * {@code isClosed()} and {@code pointer()}.
     *
     * @param parent the resource the new one depends on
     * @param arena the arena the handle is scoped to
     * @param handle the native object
     * @param object how to destroy it
     * @return the resource
     */
    public abstract NativeResource adopt(NativeResource parent, Arena arena, MemorySegment handle, NativeObject object);
}
