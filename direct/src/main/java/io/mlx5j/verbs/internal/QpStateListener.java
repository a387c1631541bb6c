// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs.internal;

/**
 * A data-path queue's part in the state changes of its QP ({@link VerbsAccess#addStateListener}): libmlx5 changes the
 * QP's doorbell record in two transitions, and the Java queues, which keep their own counters, follow it.
 * <ul>
 *   <li>RESET: libmlx5's mlx5_modify_qp zeroes both doorbell record words and restarts its ring counters
 *       (mlx5_init_qp_indices), and the device restarts its wqe_counter; the queues restart theirs at 0.
 *       {@link #beforeReset} may refuse first (work still outstanding), which leaves the QP in its state.</li>
 *   <li>RTR of a RAW_PACKET QP: mlx5_modify_qp writes libmlx5's own receive head (0 for a queue posted from Java)
 *       into the receive doorbell word, so receives the Java queue published before RTR would be dropped; the queue
 *       publishes its head again ({@link #afterRtr}).</li>
 * </ul>
 * Called under the Context's lock by the thread that changes the state: the queue's thread, or a thread ordered
 * after it (the queues' thread contract).
 */
public interface QpStateListener
{
    /**
     * Before the QP moves to RESET; throwing refuses the transition (the exception reaches the caller).
     *
     * @param qp the QP, for messages
     */
    void beforeReset(Object qp);

    /** After the QP moved to RESET: the queue restarts its counters at 0. */
    void afterReset();

    /** After a RAW_PACKET QP moved to RTR: the queue publishes its receive head again. */
    void afterRtr();

    /**
     * A close of the QP was requested (io.mlx5j.direct.CqPoller#closeAsync): the queue refuses posts from now on.
     * Unlike the other calls this one may run on any thread and without the Context's lock, so it only records the
     * request (a release store the posting thread reads).
     */
    default void closeRequested()
    {
    }
}
