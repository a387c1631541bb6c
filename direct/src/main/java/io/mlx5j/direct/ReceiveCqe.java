// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.wqe.CqeView;

/**
 * The WQE side of a receive CQE for a QP's own receive queue (or the CQ's flow-tagged one): it completes the oldest
 * outstanding WQE (handle_responder takes wq->tail), whose buffers take the scatter-to-CQE data. The rest of the CQE
 * is {@link ResponderCqe}'s.
 */
final class ReceiveCqe
{
    private ReceiveCqe()
    {
    }

    /** @return 0, or the status of a scatter-to-CQE copy that does not fit */
    static int complete(final CqPoller p, final Completion c, final OrderedReceive rq)
    {
        final CqeView v = p.view;
        final int slot = rq.tailSlot();
        if (rq == p.queues.raw)
        {
            RawReceiveCqe.ethernet(p, c, slot, rq);
        }
        c.wrId = rq.complete();
        final long scatter = v.scatterOffset();
        return scatter < 0 ? 0 : rq.copyToRecvWqe(slot, p.buf, scatter, c.byteLen);
    }
}
