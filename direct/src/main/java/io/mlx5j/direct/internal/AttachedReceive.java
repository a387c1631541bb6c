// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

/**
 * What a completion queue's poller needs of any receive queue attached to it, whatever its kind ({@link
 * OrderedReceive}, {@link SharedReceive}, {@link StridingReceive}): whether it can still take completions, and its
 * thread group. The poller holds attached receive queues by these contracts only, so it knows no concrete queue class.
 * <p>
 * These methods are public because the queues live in two packages (io.mlx5j.direct, io.mlx5j.raw); they are the CQ
 * side of a queue, called by the poller on the polling thread, and not for applications.
 */
public interface AttachedReceive
{
    /**
     * {@return whether the queue's QP, WQ or SRQ is destroyed} Its number may already belong to a new one, so no CQE
     * is this queue's any more; the poller consumes such CQEs as orphans.
     */
    boolean dead();

    /** {@return the queue's thread group ({@code -Dmlx5j.debug=true} checks it on every post and poll)} */
    Ownership ownership();

    /**
     * Moves the queue to another thread group (the poller's attach and detach).
     *
     * @param ownership the new group
     */
    void ownership(Ownership ownership);
}
