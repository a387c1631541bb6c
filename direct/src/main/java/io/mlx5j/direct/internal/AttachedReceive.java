// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

/**
 * What a completion queue's poller needs of any receive queue attached to it, whatever its kind ({@link
 * OrderedReceive}, {@link SharedReceive}, {@link StridingReceive}): whether it can still take completions, and its
 * thread group. The poller holds attached receive queues by these contracts only, so it knows no concrete queue class.
 * <p>
 * Each queue implements it in a private nested object (its "CQ side"), never in its public class, so these methods
 * are not part of the queue's API; the poller calls them on the polling thread.
 */
public interface AttachedReceive
{
    /**
     * {@return whether the queue's QP, WQ or SRQ is destroyed} Its number may already belong to a new one, so no CQE
     * is this queue's any more; the poller consumes such CQEs as orphans.
     */
    boolean dead();

    /**
     * {@return the application's queue object this is the poller's view of: what ownership records and messages
     * name}
     */
    Object queue();

    /** {@return the queue's thread group ({@code -Dmlx5j.debug=true} checks it on every post and poll)} */
    Ownership ownership();

    /**
     * Moves the queue to another thread group (the poller's attach and detach).
     *
     * @param ownership the new group
     */
    void ownership(Ownership ownership);
}
