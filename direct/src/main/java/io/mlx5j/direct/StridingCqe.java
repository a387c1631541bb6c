// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.StridingReceive;
import io.mlx5j.memory.RingStores;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.CqeView;

/**
 * A receive CQE of the striding queue a CQ serves alone, decoded as DPDK's mlx5 PMD does (drivers/net/mlx5/mlx5_rx.c
 * mlx5_rx_burst_mprq; libmlx5 has no decoder for them): byte_cnt = length [15:0] | strides [29:16] | filler [31],
 * wqe_counter = first stride. A filler consumes the rest of a WQE and is not a frame: nothing is reported. A frame:
 * its length, first stride and stride count, where it is in the WQE's buffer, the Ethernet fields as for a raw QP, and
 * the WQEs released by it and the fillers before it.
 */
final class StridingCqe
{
    private StridingCqe()
    {
    }

    /**
     * A plain frame or filler (RESP_SEND, no scatter) read at its address, as {@link RawReceiveCqe#decode} reads a raw
     * one; the same fields and rules as {@link #decode(CqPoller, Completion, int)}.
     *
     * @return false for a filler
     */
    static boolean decode(final CqPoller p, final Completion c, final long cqe64, final StridingReceive m)
    {
        final CqQueues q = p.queues;
        final int byteCnt = (int)RingStores.getLongBE(cqe64 + Cqe64.BYTE_CNT_OFFSET - 4);
        final int strides = (byteCnt & Cqe64.MPRQ_STRIDE_NUM_MASK) >>> Cqe64.MPRQ_STRIDE_NUM_SHIFT;
        final long tail = RingStores.getLongBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET);
        final int strideIndex = ((int)tail >>> 16) & 0xffff;
        if ((byteCnt & Cqe64.MPRQ_FILLER_MASK) != 0)
        {
            q.stridingFillers += m.consume(strideIndex, strides);
            return false;
        }
        // no checksum flag: libmlx5 sets MLX5_RX_CSUM_VALID for raw packet QPs only, and a WQ is not one
        c.rawFrame(RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_TYPE_OFFSET),
            RingStores.getLongBE(cqe64 + Cqe64.FLAGS_RQPN_OFFSET), 0,
            (int)RingStores.getLongBE(cqe64 + Cqe64.SRQN_UIDX_OFFSET),
            byteCnt & Cqe64.MPRQ_LEN_MASK,
            RingStores.getLongBE(cqe64 + Cqe64.TIMESTAMP_OFFSET),
            (int)(tail >>> 32),
            (int)RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_RESULT_OFFSET - 4),
            m.frameAddress(strideIndex));
        c.wrId = m.tailWrId();
        c.strideIndex = strideIndex;
        c.strideCount = strides;
        c.releasedWqes = m.consume(strideIndex, strides) + q.stridingFillers;
        q.stridingFillers = 0;
        return true;
    }

    /**
     * Any other receive CQE of the striding queue (with the immediate or scatter flags), through the poller's view,
     * which is at the CQE.
     *
     * @return false for a filler, or a CQE consumed as an orphan (the queue's WQ is destroyed)
     */
    static boolean decode(final CqPoller p, final Completion c, final int qpn)
    {
        final CqQueues q = p.queues;
        final StridingReceive m = q.striding;
        final CqeView v = p.view;
        if (m.dead())
        {
            return p.unclaimedRecv(qpn, v.wqeCounter());
        }
        final int byteCnt = v.byteCnt();
        final int strides = (byteCnt & Cqe64.MPRQ_STRIDE_NUM_MASK) >>> Cqe64.MPRQ_STRIDE_NUM_SHIFT;
        final int strideIndex = v.wqeCounter();
        if ((byteCnt & Cqe64.MPRQ_FILLER_MASK) != 0)
        {
            q.stridingFillers += m.consume(strideIndex, strides);
            return false;
        }
        c.wrId = m.tailWrId();
        c.frameAddress = m.frameAddress(strideIndex);
        c.byteLen = byteCnt & Cqe64.MPRQ_LEN_MASK;
        c.strideIndex = strideIndex;
        c.strideCount = strides;
        c.timestamp = v.timestamp();
        c.opcode = WcOpcode.RECV;
        c.flowTag = v.flowTag();
        c.cvlan = v.vlanInfo();
        c.l4HdrTypeEtc = v.l4HdrTypeEtc();
        c.hdsIpExt = v.hdsIpExt();
        c.rssHash = v.rssHashResult();
        c.rssHashType = v.rssHashType();
        ResponderCqe.addressing(p, c, v.immInvalPkey());
        c.releasedWqes = m.consume(strideIndex, strides) + q.stridingFillers;
        q.stridingFillers = 0;
        return true;
    }

    /** A receive error CQE (a flush, mostly) of the striding queue: its oldest WQE is done, whatever its strides. */
    static boolean error(final CqPoller p, final Completion c, final int qpn)
    {
        final CqQueues q = p.queues;
        final StridingReceive m = q.striding;
        if (m.dead())
        {
            return p.unclaimedRecv(qpn, p.view.wqeCounter());
        }
        ErrorCqe.status(p, c);
        c.wrId = m.tailWrId();
        m.releaseOldest();
        c.releasedWqes = 1 + q.stridingFillers;
        q.stridingFillers = 0;
        return true;
    }
}
