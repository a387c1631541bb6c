// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.direct.internal.SharedReceive;
import io.mlx5j.memory.Be;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.CqeView;

/**
 * A successful receive CQE (MLX5_CQE_RESP_SEND, _SEND_IMM, _SEND_INV, _WR_IMM), decoded through the poller's view
 * as rdma-core v44 providers/mlx5/cq.c handle_responder does: the WQE it completes (the oldest of a QP's receive
 * queue, {@link ReceiveCqe}; the one wqe_counter names of an SRQ, {@link SrqReceiveCqe}), then the opcode, the
 * immediate or invalidated rkey and the addressing fields. The CQ's striding queue, if it has one, takes its CQEs
 * instead ({@link StridingCqe}).
 */
final class ResponderCqe
{
    /** ml_path: byte 0x11 of mlx5_cqe64 (its low 7 bits are the DLID path bits). */
    private static final int ML_PATH_OFFSET = 0x11;

    private ResponderCqe()
    {
    }

    /** @return true for a completion, false if the CQE was consumed (an orphan, an unexpected one, a filler) */
    static boolean decode(final CqPoller p, final Completion c, final int op, final int qpn)
    {
        final CqQueues q = p.queues;
        if (q.striding != null)
        {
            return StridingCqe.decode(p, c, qpn);
        }
        final CqeView v = p.view;
        c.byteLen = v.byteCnt();
        c.timestamp = v.timestamp();
        final OrderedReceive rq = q.recv(qpn);
        final int err;
        if (rq != null)
        {
            err = ReceiveCqe.complete(p, c, rq);
        }
        else
        {
            final SharedReceive srq = q.srq(qpn, v.srqnUidx());
            if (srq == null)
            {
                return p.unclaimedRecv(qpn, v.wqeCounter());
            }
            err = SrqReceiveCqe.complete(p, c, srq);
        }
        if (err != 0)
        {
            c.status = err;     // libmlx5 returns here: opcode, flags and addressing stay unset
            return true;
        }
        final int immInvalPkey = v.immInvalPkey();
        switch (op)
        {
            case Cqe64.MLX5_CQE_RESP_WR_IMM ->
            {
                c.opcode = WcOpcode.RECV_RDMA_WITH_IMM;
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.immOrInv = immInvalPkey;
            }
            case Cqe64.MLX5_CQE_RESP_SEND -> c.opcode = WcOpcode.RECV;
            case Cqe64.MLX5_CQE_RESP_SEND_IMM ->
            {
                c.opcode = WcOpcode.RECV;
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.immOrInv = immInvalPkey;
            }
            default ->
            {
                c.opcode = WcOpcode.RECV;
                c.wcFlags |= WcOpcode.WC_WITH_INV;
                c.immOrInv = immInvalPkey;
            }
        }
        addressing(p, c, immInvalPkey);
        return true;
    }

    /** handle_responder's addressing fields, from the CQE the poller's view is at. */
    static void addressing(final CqPoller p, final Completion c, final int immInvalPkey)
    {
        final CqeView v = p.view;
        final int flagsRqpn = v.flagsRqpn();
        c.slid = v.slid();
        c.sl = (flagsRqpn >>> 24) & 0xf;
        c.srcQp = flagsRqpn & 0xffffff;
        c.dlidPathBits = Be.u8(p.buf, v.cqeOffset() + p.cqeSize - Cqe64.LENGTH + ML_PATH_OFFSET) & 0x7f;
        if (((flagsRqpn >>> 28) & 3) != 0)
        {
            c.wcFlags |= WcOpcode.WC_GRH;
        }
        c.pkeyIndex = immInvalPkey & 0xffff;
    }
}
