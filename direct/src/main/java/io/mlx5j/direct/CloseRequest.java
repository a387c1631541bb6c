// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

/**
 * A close requested from any thread and carried out by the thread that polls a {@link CqPoller}: a QP's
 * ({@link QpClose}) or an XRC SRQ's ({@link SrqClose}). The poller keeps them on one lock-free inbox and one list of
 * requests being carried out, and moves each one a step on at the start of its poll calls while any is pending.
 * <p>
 * Threads: the links are written by the requester before the CAS that publishes the request ({@link #inboxNext}),
 * then only by the owner; {@link #step()} and {@link #flushInto(Completion)} run on the owner thread only.
 */
abstract class CloseRequest
{
    /** The poller's inbox of new requests (a lock-free stack): written before the CAS that publishes this one. */
    CloseRequest inboxNext;
    /** The poller's list of requests being carried out: owner thread only. */
    CloseRequest activeNext;

    /**
     * One step of the close, on the owner thread inside a poll call. Never throws: a failure ends the close and is
     * kept for the requester.
     *
     * @return true once the close is over (done or failed)
     */
    abstract boolean step();

    /**
     * Hands the caller of poll one completion the close owes it that no CQE reports (an XRC SRQ's WQEs left posted at
     * its destroy), owner thread.
     *
     * @param c the view to fill
     * @return whether {@code c} was filled
     */
    boolean flushInto(final Completion c)
    {
        return false;
    }
}
