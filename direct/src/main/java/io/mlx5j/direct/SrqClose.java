// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.wqe.WcStatus;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A close of an XRC SRQ requested from any thread ({@link CqPoller#closeAsync(SrqRecvQueue)}) and carried out by the
 * thread that polls the SRQ's CQ (the owner: it posts to the SRQ and polls its CQ), inside its poll calls, in this
 * order:
 * <ol>
 * <li>publishes what the queue posted before the request and had not rung yet ({@link SrqRecvQueue#ring()}); the
 *     queue refuses posts from the request on;</li>
 * <li>waits until the closes of XRC TGT QPs (and of QPs created on the SRQ) requested on the same poller are done:
 *     a TGT QP may be receiving into the SRQ until its close has seen its LAST_WQE_REACHED;</li>
 * <li>keeps polling until the CQEs the CQ held at that moment are polled, so that every WQE a TGT QP consumed comes
 *     back to the caller of poll with its real status (or WR_FLUSH_ERR, for the message a TGT QP's close cut);</li>
 * <li>destroys the SRQ ({@code ibv_destroy_srq}, through {@link SharedReceiveQueue#close()});</li>
 * <li>hands every WQE still posted (no TGT QP took it) to the caller of poll as a completion with status
 *     WR_FLUSH_ERR, its wr_id, QP number 0 and vendor syndrome 0, one per completion slot, counted in
 *     {@link CqPoller#flushes()} like the flushes the device reports; ConnectX writes no CQE for an SRQ's WQEs at
 *     its destroy (verbs leaves them to the application), so the poller reports them itself: each WQE posted comes
 *     back exactly once, through a CQE or through this step;</li>
 * <li>marks this handle done: {@link #isDone()} turns true and {@link #await} returns.</li>
 * </ol>
 * What the owner cannot see it cannot wait for: an XRC TGT QP of another process that shares the domain through a
 * file, or one of this process whose close was not requested on this poller, may still deliver into the SRQ until it
 * is closed. Close those first (as the IBA asks of every QP on an SRQ before the SRQ goes); a CQE that arrives after
 * the destroy anyway is consumed as an orphan ({@link CqPoller#orphanCqes()}), and its WQE was already reported as a
 * flush.
 * <p>
 * <b>Threads.</b> {@link #isDone()}, {@link #await}, {@link #failure()} and {@link #srq()}: any thread. The owner
 * must not {@link #await} its own request (the work happens in its poll calls); it checks {@link #isDone()} between
 * polls.
 */
public final class SrqClose extends CloseRequest
{
    private static final int REQUESTED = 0;
    private static final int WAITING = 1;
    private static final int FLUSHING = 2;
    private static final int DONE = 3;

    private final SrqRecvQueue queue;
    private final CqPoller poller;
    private final CountDownLatch done = new CountDownLatch(1);
    /** Owner thread only, but {@link #DONE} is stored last (volatile) so that a waiter sees {@link #failure}. */
    private volatile int state = REQUESTED;
    private volatile RuntimeException failure;
    /** The CQ's free-running index up to which it held CQEs once no TGT QP close was pending; owner thread. */
    private int drainTo;
    private boolean drainToSet;
    /** The next WQE slot to look at for a flush; owner thread. */
    private int flushFrom;

    SrqClose(final SrqRecvQueue queue, final CqPoller poller)
    {
        this.queue = queue;
        this.poller = poller;
    }

    /** {@return the queue of the SRQ being closed} Any thread. */
    public SrqRecvQueue srq()
    {
        return queue;
    }

    /**
     * {@return whether the close is over: the SRQ destroyed and each of its WQEs handed back (or the close failed, see
     * {@link #failure()})} Any thread.
     */
    public boolean isDone()
    {
        return state == DONE;
    }

    /**
     * {@return why the close failed (the destroy threw), or null; read after {@link #isDone()}} Any thread.
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
     * @return true if the close is done, false if the time ran out first (the owner has not polled enough yet, or a
     *         TGT QP close it waits for is not done)
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
            throw new IllegalStateException("the close of " + queue + " failed", f);
        }
        return true;
    }

    @Override
    boolean step()
    {
        try
        {
            final SharedReceiveQueue srq = queue.srq();
            if (state == REQUESTED)
            {
                if (!srq.isClosed())
                {
                    queue.ring();    // posted before the request: the device's, so reported like any other WQE
                }
                state = WAITING;
            }
            if (state == WAITING)
            {
                if (!srq.isClosed())
                {
                    if (poller.qpClosesPending(srq))
                    {
                        return false;
                    }
                    if (!drainToSet)
                    {
                        drainTo = poller.producedUpTo();
                        drainToSet = true;
                    }
                    if (poller.consumerIndex() - drainTo < 0)
                    {
                        return false;
                    }
                    srq.close();
                }
                state = FLUSHING;
            }
            if (queue.nextOutstanding(flushFrom) >= 0)
            {
                return false;    // flushInto hands them out
            }
            return finish(null);
        }
        catch (final RuntimeException e)
        {
            return finish(e);
        }
    }

    @Override
    boolean flushInto(final Completion c)
    {
        if (state != FLUSHING)
        {
            return false;
        }
        final int slot = queue.nextOutstanding(flushFrom);
        if (slot < 0)
        {
            return false;
        }
        flushFrom = slot + 1;
        c.clear();
        c.wrId = queue.flushed(slot);
        c.status = WcStatus.WR_FLUSH_ERR.code();
        c.syndrome = CqPoller.FLUSH_SYNDROME;
        poller.errorCqes[CqPoller.FLUSH_SYNDROME]++;
        return true;
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
        return "SrqClose(" + queue + (isDone() ? failure == null ? ", done)" : ", failed)" : ", pending)");
    }
}
