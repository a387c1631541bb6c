// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.SharedReceive;
import io.mlx5j.wqe.CqeView;

/**
 * The WQE side of a receive CQE for a QP that receives from an SRQ: it completes the SRQ WQE its wqe_counter names
 * (handle_responder, srq.c mlx5_free_srq_wqe), whose buffers take the scatter-to-CQE data (mlx5_copy_to_recv_srq).
 * The rest of the CQE is {@link ResponderCqe}'s.
 */
final class SrqReceiveCqe
{
    private SrqReceiveCqe()
    {
    }

    /** @return 0, or the status of a scatter-to-CQE copy that does not fit */
    static int complete(final CqPoller p, final Completion c, final SharedReceive srq)
    {
        final CqeView v = p.view;
        final int wqeCounter = v.wqeCounter();
        c.wrId = srq.complete(wqeCounter);
        final long scatter = v.scatterOffset();
        return scatter < 0 ? 0 : srq.copyToRecvSrq(wqeCounter, p.buf, scatter, c.byteLen);
    }
}
