// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A close of a QP requested from any thread ({@link CqPoller#closeAsync(QueuePair)}) and carried out by the thread
 * that polls: the handle the requester waits on. The poller's thread (the owner: it posts to the QP's queues and
 * polls their CQs) does the work inside its poll calls, in this order:
 * <ol>
 * <li>rings what its queues posted before the request and had not rung yet (so every posted WQE is the device's and
 *     gets its flush completion), then moves the QP to ERR ({@link QueuePair#toError()});</li>
 * <li>keeps polling as usual: every outstanding send and receive WQE of the QP comes back as a completion with
 *     status {@code WR_FLUSH_ERR} (or its real status if it finished first), handed to the caller of poll like any
 *     other and counted in {@link CqPoller#flushes()}; for a QP on an SRQ, and for an XRC TGT QP (which receives
 *     into its domain's XRC SRQs), it also waits for {@link #lastWqeReached()} and then for the CQEs the CQ held at
 *     that moment;</li>
 * <li>destroys the QP ({@link QueuePair#close()}, through libibverbs as any close), which frees its rings;</li>
 * <li>marks this handle done: {@link #isDone()} turns true and {@link #await} returns.</li>
 * </ol>
 * <b>Threads.</b> {@link #isDone()}, {@link #await}, {@link #lastWqeReached()}, {@link #failure()} and
 * {@link #queuePair()}: any thread. The owner must not {@link #await} its own request (it would wait for itself:
 * the work happens in its poll calls); it checks {@link #isDone()} between polls instead. Which thread destroys the
 * QP: the owner, in the poll call that finds the last flush completion polled; nothing of the close runs on the
 * requester's thread but the recording of the request.
 */
public final class QpClose extends CloseRequest
{
    private static final int REQUESTED = 0;
    private static final int DRAINING = 1;
    private static final int DONE = 2;

    private final QueuePair qp;
    private final CqPoller poller;
    private final CountDownLatch done = new CountDownLatch(1);
    /** Owner thread only, but {@link #DONE} is stored last (volatile) so that a waiter sees {@link #failure}. */
    private volatile int state = REQUESTED;
    private volatile boolean lastWqe;
    private volatile RuntimeException failure;

    /** The queues of the QP in the poller's thread group, found when the work starts: owner thread only. */
    private SendQueue sq;
    private RecvQueue rq;
    private boolean onSrq;
    /** For a QP on an SRQ: the CQ's free-running index up to which it held CQEs when LAST_WQE_REACHED was seen. */
    private int drainTo;
    private boolean drainToSet;

    QpClose(final QueuePair qp, final CqPoller poller)
    {
        this.qp = qp;
        this.poller = poller;
    }

    /** {@return the QP being closed} Any thread. */
    public QueuePair queuePair()
    {
        return qp;
    }

    /** {@return whether the close is over: the QP destroyed (or the close failed, see {@link #failure()})} */
    public boolean isDone()
    {
        return state == DONE;
    }

    /**
     * {@return why the close failed (the QP's move to ERR or its destroy threw), or null; read after
     * {@link #isDone()}} Any thread.
     */
    public RuntimeException failure()
    {
        return failure;
    }

    /**
     * Waits until the owner has carried out the close. For any thread but the owner (see the class comment).
     *
     * @param timeout how long to wait at most
     * @param unit    its unit
     * @return true if the close is done, false if the time ran out first (the close is still pending: the owner has
     *         not polled, or the QP still has WQEs whose flush completions were not polled)
     * @throws InterruptedException if the waiting thread is interrupted
     * @throws IllegalStateException if the close failed; its cause is {@link #failure()}
     */
    public boolean await(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        if (!done.await(timeout, unit))
        {
            return false;
        }
        final RuntimeException f = failure;
        if (f != null)
        {
            throw new IllegalStateException("the close of " + qp + " failed", f);
        }
        return true;
    }

    /**
     * Reports the QP's {@code IBV_EVENT_QP_LAST_WQE_REACHED} (read from {@link io.mlx5j.verbs.AsyncEvents}, which
     * this class does not read because only one reader may take the context's events): a QP on an SRQ is destroyed
     * only after it, as the IBA and rdma-core require (no SRQ WQE is being consumed by the QP any more), and after
     * the CQEs its CQ held at that moment were polled. The same for an XRC TGT QP, which may hold the XRC SRQ WQE of
     * a message arriving in several packets: its flush CQE precedes the event. Ignored for a QP without an SRQ. Any
     * thread.
     * <p>
     * The device raises the event for every XRC TGT QP that enters ERR, also one that no request ever reached.
     */
    public void lastWqeReached()
    {
        lastWqe = true;
    }

    /**
     * One step of the close, on the owner thread inside a poll call of {@code poller}'s ({@link CqPoller}). Never
     * throws: a failure ends the close and is kept for {@link #await}.
     *
     * @return true once the close is over (done or failed)
     */
    @Override
    boolean step()
    {
        try
        {
            if (qp.isClosed())
            {
                return finish(null);    // destroyed by someone else meanwhile (its thread, a CQ or PD cascade)
            }
            if (state == REQUESTED)
            {
                start();
            }
            if (sq != null && !sq.dead() && sq.outstanding() != 0 || rq != null && rq.outstanding() != 0)
            {
                return false;
            }
            if (onSrq && !srqDrained())
            {
                return false;
            }
            qp.close();
            return finish(null);
        }
        catch (final RuntimeException e)
        {
            return finish(e);
        }
    }

    private void start()
    {
        for (final Object member : poller.ownership.members())
        {
            if (member instanceof SendQueue s && s.queuePair() == qp)
            {
                sq = s;
            }
            else if (member instanceof RecvQueue r && r.queuePair() == qp)
            {
                rq = r;
            }
        }
        // posted before the request but not rung: the device flushes only what it was told of
        if (sq != null)
        {
            sq.ring();
        }
        if (rq != null)
        {
            rq.ring();
        }
        // an XRC TGT QP receives into its domain's XRC SRQs: the SRQ rule, as for a QP created on an SRQ
        onSrq = qp.srq() != null || qp.type() == QpType.XRC_RECV;
        state = DRAINING;
        qp.toError();
    }

    /** A QP on an SRQ: LAST_WQE_REACHED reported, then the CQEs the CQ held at that moment polled. */
    private boolean srqDrained()
    {
        if (!lastWqe)
        {
            return false;
        }
        if (!drainToSet)
        {
            drainTo = poller.producedUpTo();
            drainToSet = true;
        }
        return poller.consumerIndex() - drainTo >= 0;
    }

    /**
     * Whether the QP being closed may receive into {@code srq}: an XRC TGT QP (into any XRC SRQ of its domain), or a
     * QP created on {@code srq}. Owner thread ({@link SrqClose} waits for such closes).
     */
    boolean receivesInto(final SharedReceiveQueue srq)
    {
        return qp.type() == QpType.XRC_RECV || qp.srq() == srq;
    }

    private boolean finish(final RuntimeException e)
    {
        failure = e;
        state = DONE;
        done.countDown();
        return true;
    }

    @Override
    public String toString()
    {
        return "QpClose(" + qp + (isDone() ? failure == null ? ", done)" : ", failed)" : ", pending)");
    }
}
