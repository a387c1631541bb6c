// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import io.mlx5j.bindings.IbvQpInitAttrEx;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.doorbell.DbrecDescriptor;
import io.mlx5j.memory.Be;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.EthSeg;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The number of frame bytes libmlx5 copies into the Ethernet segment of every raw send: its context's
 * {@code eth_min_inline_size}, 0 or {@link EthSeg#MLX5_ETH_L2_INLINE_HEADER_SIZE} (rdma-core v44
 * providers/mlx5/mlx5.c: 0 when the kernel answered MLX5_USER_INLINE_MODE_NONE in the context response, 18
 * otherwise). The value lives in libmlx5's private context, so it is asked of libmlx5 itself, once per context: on a
 * throw-away raw QP created for the ibv_wr_* API, {@code ibv_wr_start}, {@code ibv_wr_send} and
 * {@code ibv_wr_set_sge} build a WQE for a 64-byte frame in the ring (mlx5_send_wr_send_eth and
 * mlx5_send_wr_set_sge_eth write inline_hdr_sz = eth_min_inline_size), the Ethernet segment's inline_hdr_sz is
 * read back, and {@code ibv_wr_abort} rolls the queue back: no doorbell, nothing is sent.
 */
final class EthMinInline
{
    private static final Map<Context, Integer> CACHE = new WeakHashMap<>();

    private EthMinInline()
    {
    }

    /** libmlx5's eth_min_inline_size for {@code qp}'s context. */
    static int of(final QueuePair qp)
    {
        final Context context = qp.pd().context();
        synchronized (CACHE)
        {
            final Integer known = CACHE.get(context);
            if (known != null)
            {
                return known;
            }
            final int probed = probe(qp);
            CACHE.put(context, probed);
            return probed;
        }
    }

    private static int probe(final QueuePair qp)
    {
        final QpConfig config = QpConfig.builder(QpType.RAW_PACKET, qp.sendCq()).maxSendWr(1).maxRecvWr(1)
            .maxSendSge(1).maxRecvSge(1).maxInlineData(0).sendOpsFlags(IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND).build();
        try (QueuePair probe = qp.pd().createQp(config); Arena arena = Arena.ofConfined())
        {
            final QpRing rings = probe.rings();
            final MemorySegment frame = arena.allocate(64, 8);
            final MemorySegment qpx = probe.qpEx();
            final int producer = Be.be32(rings.dbrec(), DbrecDescriptor.MLX5_SND_DBR_OFFSET) & 0xffff;
            final long ctrl = ((long)producer & (rings.sqWqeCnt() - 1)) * rings.sqStride();
            InlineVerbs.ibv_wr_start(qpx);
            try
            {
                InlineVerbs.wrId(qpx, 0);
                InlineVerbs.wrFlags(qpx, 0);
                InlineVerbs.ibv_wr_send(qpx);
                InlineVerbs.ibv_wr_set_sge(qpx, 0, frame.address(), (int)frame.byteSize());
                return Be.be16(rings.sq(), ctrl + CtrlSeg.LENGTH + EthSeg.INLINE_HDR_SZ_OFFSET);
            }
            finally
            {
                InlineVerbs.ibv_wr_abort(qpx);
            }
        }
    }
}
