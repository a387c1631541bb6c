// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The one thread that may use a group of direct objects: the queues attached to a {@link io.mlx5j.direct.CqPoller} and
 * the CqPoller itself share plain (unlocked) counters, so they are one unit for threads. Attaching merges groups (a
 * union-find); the first use under {@code -Dmlx5j.debug=true} records the thread, and a use from any other thread
 * throws, naming both threads and the group's members. {@link #claim()} hands the group over explicitly.
 * <p>
 * Only the debug check and {@link #claim()} read or write the thread; with the switch off nothing here runs on a
 * data path. The fields are volatile so that a check in the new owner sees a claim made before a proper hand-over.
 */
public final class Ownership
{
    /**
     * {@code -Dmlx5j.debug=true}: every hot-path call of a queue or poller checks that it runs on its group's thread,
     * and closing a QP, WQ or CQ checks the close rule ({@link #checkClose}). A {@code static final}, so with the
     * switch off the JIT drops every check.
     */
    public static final boolean DEBUG = Boolean.getBoolean("mlx5j.debug");

    private volatile Ownership parent;
    private volatile Thread thread;
    private volatile String firstUser;
    private final List<Object> members = new ArrayList<>();

    /**
     * A group holding {@code member} alone, not yet used by any thread.
     *
     * @param member the queue or poller
     */
    public Ownership(final Object member)
    {
        members.add(member);
    }

    private Ownership root()
    {
        Ownership r = this;
        while (r.parent != null)
        {
            r = r.parent;
        }
        return r;
    }

    /**
     * Puts {@code b}'s group into {@code a}'s. Throws if both groups are already in use by different threads, which
     * is the same error the first shared use would report, only earlier.
     *
     * @param a the group that absorbs
     * @param b the group absorbed
     */
    public static void merge(final Ownership a, final Ownership b)
    {
        synchronized (Ownership.class)
        {
            final Ownership ra = a.root();
            final Ownership rb = b.root();
            if (ra == rb)
            {
                return;
            }
            if (ra.thread != null && rb.thread != null && ra.thread != rb.thread)
            {
                throw new IllegalStateException(rb.members + " belong to thread '" + rb.thread.getName() + "' and "
                    + ra.members + " to thread '" + ra.thread.getName() + "': a queue and the CqPoller that retires "
                    + "it must be used from one thread (claim() hands a group over)");
            }
            ra.members.addAll(rb.members);
            if (ra.thread == null)
            {
                ra.thread = rb.thread;
                ra.firstUser = rb.firstUser;
            }
            rb.parent = ra;
        }
    }

    /**
     * The debug check: the first use records the calling thread for the whole group, a use from another throws.
     *
     * @param user the object being used, for the message
     */
    public void check(final Object user)
    {
        final Ownership r = root();
        final Thread me = Thread.currentThread();
        final Thread owner = r.thread;
        if (owner == me)
        {
            return;
        }
        if (owner == null)
        {
            synchronized (Ownership.class)
            {
                if (r.thread == null)
                {
                    r.firstUser = user.toString();
                    r.thread = me;
                    return;
                }
            }
            check(user);
            return;
        }
        final List<Object> group;
        synchronized (Ownership.class)
        {
            group = List.copyOf(r.members);
        }
        throw new IllegalStateException(user + " was used from thread '" + me.getName()
            + "', but it belongs to thread '" + owner.getName() + "' (first used there by " + r.firstUser
            + ") together with " + group + ": a queue and the CqPoller that retires it are used from one thread;"
            + " hand them over with claim() (mlx5j.debug owner check)");
    }

    /**
     * A group of its own for {@code member}, which leaves {@code from}'s group (a detach), keeping the group's thread:
     * the detached queue stays where it was used until it is claimed.
     *
     * @param from the group being left
     * @param member the queue or poller
     * @return the member's new group
     */
    public static Ownership leave(final Ownership from, final Object member)
    {
        synchronized (Ownership.class)
        {
            final Ownership r = from.root();
            r.members.remove(member);
            final Ownership own = new Ownership(member);
            own.thread = r.thread;
            own.firstUser = r.firstUser;
            return own;
        }
    }

    /**
     * The debug check of the close rule: the object {@code closing} (a QP, or a CQ) may be closed by the group's
     * thread, or when the group has none yet, or when that thread has ended; from any other thread the close throws
     * (claim() the group first, after its thread has stopped posting and polling).
     *
     * @param closing the object being closed
     */
    public void checkClose(final Object closing)
    {
        final Ownership r = root();
        final Thread owner = r.thread;
        final Thread me = Thread.currentThread();
        if (owner == null || owner == me || !owner.isAlive())
        {
            return;
        }
        final List<Object> group;
        synchronized (Ownership.class)
        {
            group = List.copyOf(r.members);
        }
        throw new IllegalStateException(closing + " was closed from thread '" + me.getName() + "', but "
            + group + " belong to thread '" + owner.getName() + "', which is still running: close a QP or CQ "
            + "from the thread that posts to or polls it, or claim() the group first (a one-call post and a poll call "
            + "check the ring once and then access it unchecked; mlx5j.debug close check)");
    }

    /**
     * {@return a snapshot of the group's members (queues and CqPollers); allocates, for setup and teardown paths}
     */
    public List<Object> members()
    {
        synchronized (Ownership.class)
        {
            return List.copyOf(root().members);
        }
    }

    /** The calling thread becomes the owner of the whole group. */
    public void claim()
    {
        synchronized (Ownership.class)
        {
            final Ownership r = root();
            r.thread = Thread.currentThread();
            r.firstUser = "claim()";
        }
    }
}
