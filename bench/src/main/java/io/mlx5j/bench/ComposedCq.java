// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.doorbell.CqDoorbell;
import io.mlx5j.verbs.CqRing;
import io.mlx5j.wqe.CqeView;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WcStatus;

/**
 * The mlx5j poll path composed from its parts over {@code CompletionQueue.ring()}: {@link CqeView} (ownership check
 * and decode), {@link SendRing#complete} (retire the WQE, recover wr_id), {@link CqDoorbell#consumerIndex}. This is
 * the hot path of {@code io.mlx5j.direct.CqPoller} for requester completions of one attached send queue.
 * <p>
 * Confinement: one polling thread (the one that posts to the attached send queue).
 */
final class ComposedCq
{
    private final CqeView view = new CqeView();
    private final CqDoorbell doorbell;
    private final SendRing sq;
    private final int qpn;
    private int ci;
    private long wrId;
    private WcStatus status;

    ComposedCq(final CqRing ring, final SendRing sq, final int qpn)
    {
        view.wrap(ring.buf(), ring.cqeSize(), ring.cqeCnt());
        this.doorbell = new CqDoorbell(ring.dbrec(), ring.cqUar(), ring.cqn());
        this.sq = sq;
        this.qpn = qpn;
    }

    /** Polls up to {@code max} completions; returns how many. */
    int poll(final int max)
    {
        int n = 0;
        int c = ci;
        while (n < max && view.tryAcquire(c))
        {
            if (view.qpn() != qpn)
            {
                throw new IllegalStateException("CQE for QP 0x" + Integer.toHexString(view.qpn()));
            }
            wrId = sq.complete(view.wqeCounter());
            status = view.status();
            c++;
            n++;
        }
        if (n > 0)
        {
            ci = c;
            doorbell.consumerIndex(c);
        }
        return n;
    }

    long wrId()
    {
        return wrId;
    }

    WcStatus status()
    {
        return status;
    }
}
