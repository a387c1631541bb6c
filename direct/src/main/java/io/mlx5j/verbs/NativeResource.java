// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.verbs.internal.CloseGuard;
import io.mlx5j.verbs.internal.NativeObject;
import io.mlx5j.verbs.internal.QpStateListener;
import io.mlx5j.verbs.internal.VerbsAccess;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Base of every object that owns a libibverbs object: one shared {@link Arena} per object scopes every segment that
 * looks at the object's native memory (the struct itself, and for QPs/CQs/SRQs the rings mlx5dv_init_obj reports).
 * <p>
 * Lifetime rules, enforced here:
 * <ul>
 *   <li>{@link #close()} first closes the arena, so every view of the object (kept by anyone) fails with
 *       IllegalStateException from then on, and only then destroys the native object: no Java access can reach
 *       memory the library has freed. If a thread is still inside an access the arena refuses to close and nothing
 *       is destroyed.</li>
 *   <li>Closing an object that others depend on (a CQ used by a QP, a PD with MRs, QPs, SRQs, AHs ...) closes those
 *       first, newest first, and then the object itself: the rule {@link Context#close()} applies to everything, now
 *       at every level, so any order in which try-with-resources closes things is valid and libibverbs never sees
 *       EBUSY. A dependent that cannot close (a thread is inside an access of its arena) stops the cascade with its
 *       exception and leaves this object open and usable.</li>
 *   <li>Data-path objects working on this object (queues on a QP, a poller on a CQ) are no control-path objects and
 *       are not closed; they may veto the close through a guard ({@link CloseGuard}, registered through the internal
 *       {@link VerbsAccess}), which runs after the dependents have closed and before anything is destroyed.</li>
 *   <li>Every public method of a closed object throws IllegalStateException naming the object.</li>
 *   <li>{@link Context#close()} closes every object created under it, newest first, which is always a valid order
 *       because an object can only be created after the objects it depends on.</li>
 * </ul>
 * Threads: creation and close are serialised on the owning Context; queries may run from any thread.
 */
public abstract class NativeResource implements AutoCloseable
{
    final Arena arena;
    final Context owner;
    final MemorySegment handle;
    private final long address;
    private final List<NativeResource> dependencies;
    private final Set<NativeResource> dependents = new LinkedHashSet<>();
    /** Data-path objects' checks before destruction; never removed, as the objects have no close of their own. */
    private final List<CloseGuard> guards = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    static
    {
        VerbsAccess.set(new Access());
    }

    /**
     * @param owner        the context whose lock and registry this object joins (null for the context itself)
     * @param arena        the object's own arena, already scoping {@code handle}
     * @param handle       the native object, sized to its struct and scoped to {@code arena}
     * @param dependencies objects this one uses, which must stay open while it is
     */
    NativeResource(final Context owner, final Arena arena, final MemorySegment handle,
        final List<NativeResource> dependencies)
    {
        this.owner = owner;
        this.arena = arena;
        this.handle = handle;
        this.address = handle.address();
        this.dependencies = List.copyOf(dependencies);
        for (final NativeResource dependency : this.dependencies)
        {
            dependency.dependents.add(this);
        }
        if (owner != null)
        {
            owner.register(this);
        }
    }

    /** The lock creation and close run under. */
    final Object lock()
    {
        return owner == null ? this : owner;
    }

    /** Destroys the native object given its address; returns 0 or an errno. Called once, after the arena closed. */
    abstract int destroy(MemorySegment address);

    /** The C destroy call, for messages. */
    abstract String destroyCall();

    /** {@return whether {@code close()} has run} */
    public final boolean isClosed()
    {
        return closed;
    }

    /** Throws if closed. Every public method starts with this so a stale object fails with a clear message. */
    final void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * {@return the native object pointer (e.g. {@code struct ibv_qp *}), scoped to this object: for calls into
     * libibverbs / libmlx5 that mlx5j does not wrap (the parity tests post through libmlx5 with it)} Invalid after
     * close.
     */
    public final MemorySegment pointer()
    {
        ensureOpen();
        return handle;
    }

    @Override
    public final void close()
    {
        synchronized (lock())
        {
            if (closed)
            {
                return;
            }
            final List<NativeResource> users = new ArrayList<>(dependents);
            for (int i = users.size() - 1; i >= 0; i--)
            {
                users.get(i).close();   // removes itself from dependents
            }
            for (final CloseGuard guard : guards)
            {
                guard.beforeClose(this);
            }
            beforeDestroy();
            arena.close();
            closed = true;
            for (final NativeResource dependency : dependencies)
            {
                dependency.dependents.remove(this);
            }
            if (owner != null)
            {
                owner.unregister(this);
            }
            final int rc = destroy(MemorySegment.ofAddress(address));
            if (rc != 0)
            {
                throw new VerbsException(destroyCall(), rc,
                    this + " is closed on the Java side but the library kept it");
            }
        }
    }

    /** Hook run before the arena closes, while the object is still usable (e.g. acking pending CQ events). */
    void beforeDestroy()
    {
    }

    /** The data path's way past the package boundary: see {@link VerbsAccess}. */
    private static final class Access extends VerbsAccess
    {
        @Override
        public void addCloseGuard(final NativeResource resource, final CloseGuard guard)
        {
            resource.guards.add(guard);
        }

        @Override
        public void addStateListener(final QueuePair qp, final QpStateListener listener)
        {
            qp.addStateListener(listener);
        }

        @Override
        public void closeRequested(final QueuePair qp)
        {
            qp.closeRequested();
        }

        @Override
        public Object lock(final NativeResource resource)
        {
            return resource.lock();
        }

        @Override
        public NativeResource adopt(final NativeResource parent, final Arena arena, final MemorySegment handle,
            final NativeObject object)
        {
            return new Adopted(parent, arena, handle, object);
        }
    }

    /** A libibverbs object owned by a class outside this package ({@link VerbsAccess#adopt}). */
    private static final class Adopted extends NativeResource
    {
        private final NativeObject object;

        Adopted(final NativeResource parent, final Arena arena, final MemorySegment handle, final NativeObject object)
        {
            super(owner(parent), arena, handle, List.of(parent));
            this.object = object;
        }

        private static Context owner(final NativeResource parent)
        {
            if (parent.owner == null)
            {
                throw new IllegalArgumentException("adopt under an object of a Context, not under the Context itself");
            }
            return parent.owner;
        }

        @Override
        int destroy(final MemorySegment address)
        {
            return object.destroy(address);
        }

        @Override
        String destroyCall()
        {
            return object.destroyCall();
        }

        @Override
        public String toString()
        {
            return object.describe();
        }
    }
}
