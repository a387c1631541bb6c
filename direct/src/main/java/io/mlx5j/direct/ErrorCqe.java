// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.direct.internal.SharedReceive;
import io.mlx5j.wqe.CqeView;
import io.mlx5j.wqe.WcStatus;

/**
 * An error CQE (MLX5_CQE_REQ_ERR, MLX5_CQE_RESP_ERR: struct mlx5_err_cqe), decoded through the poller's view as
 * rdma-core v44 providers/mlx5/cq.c mlx5_handle_error_cqe does: the status from the syndrome, the vendor syndrome,
 * and the WQE it retires (a send WQE by wqe_counter; the oldest receive WQE; an SRQ WQE by wqe_counter). A QP torn
 * down with WQEs outstanding completes each of them with such a CQE (WR_FLUSH_ERR); if its queue is gone by then, the
 * poller consumes them as orphans.
 */
final class ErrorCqe
{
    private ErrorCqe()
    {
    }

    /** A send error CQE. @return true for a completion, false for a CQE consumed as an orphan or unexpected one */
    static boolean requester(final CqPoller p, final Completion c, final int qpn)
    {
        final SendQueue sq = p.queues.send(qpn);
        if (sq == null)
        {
            return p.unclaimedSend(qpn);
        }
        status(p, c);
        c.wrId = sq.complete(p.view.wqeCounter());
        return true;
    }

    /** A receive error CQE. @return true for a completion, false for a CQE consumed as an orphan or unexpected one */
    static boolean responder(final CqPoller p, final Completion c, final int qpn)
    {
        final CqQueues q = p.queues;
        if (q.striding != null)
        {
            return StridingCqe.error(p, c, qpn);
        }
        final CqeView v = p.view;
        final OrderedReceive rq = q.recv(qpn);
        if (rq != null)
        {
            status(p, c);
            c.wrId = rq.complete();
            return true;
        }
        final SharedReceive srq = q.srq(qpn, v.srqnUidx());
        if (srq == null)
        {
            return p.unclaimedRecv(qpn, v.wqeCounter());
        }
        status(p, c);
        c.wrId = srq.complete(v.wqeCounter());
        return true;
    }

    /** The status, syndrome and vendor syndrome of the error CQE the poller's view is at. */
    static void status(final CqPoller p, final Completion c)
    {
        final CqeView v = p.view;
        final int syndrome = v.syndrome();
        c.status = WcStatus.fromSyndrome(syndrome).code();
        c.syndrome = syndrome;
        c.vendorErr = v.vendorSyndrome();
        p.errorCqes[syndrome & 0xff]++;     // the error path only: a successful completion counts nothing
    }
}
