// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.bindings.Mlx5dvCqInitAttr;
import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.direct.internal.StridingReceive;
import io.mlx5j.memory.RingStores;
import io.mlx5j.wqe.Cqe64;

/**
 * The completions of a compressed CQE block (a CQ created by {@link io.mlx5j.verbs.Context#createCompressedCq}),
 * decoded as Linux mlx5e (en_rx.c mlx5e_decompress_cqes_start/_cont) and DPDK's mlx5 PMD (mlx5_rx.c
 * mlx5_rx_poll_len, the legacy layout) read them; libmlx5 has no decoder. The layout:
 * <ul>
 * <li>a block of N completions takes N consecutive CQ slots T .. T+N-1; slot T, the <em>title</em>, is a whole CQE
 *     whose op_own format bits [3:2] are 3 (MLX5_COMPRESSED) and whose byte_cnt is N; its other fields hold for every
 *     completion of the block, its wqe_counter is the first's, its timestamp stands for all;</li>
 * <li>the 8-byte mini-CQEs (DPDK mlx5_prm.h struct mlx5_mini_cqe8: big-endian rx_hash_result, or check_sum and
 *     stride_idx; then byte_cnt) go 8 to a slot: completion i in slot T+1 if i &lt; 8, else T + (i &amp; ~7), at
 *     (i &amp; 7) * 8;</li>
 * <li>the device writes no other slot of the block: after the last completion every slot T .. T+N-1 gets an
 *     INVALID opcode, as DPDK does, so that a slot skipped in this pass never looks valid in a later one.</li>
 * </ul>
 * Per completion: byte_cnt from the mini-CQE; the RSS hash (HASH) or the checksum (CSUM, CSUM_STRIDX) from it;
 * the receive WQE is the next one of a raw queue (a cyclic RQ completes in order); on a striding queue the stride
 * index is the mini-CQE's (CSUM_STRIDX) or the title's plus the strides the earlier completions took (Linux
 * mlx5e_decompress_cqe for RQs without mini_cqe_resp_stride_index).
 * <p>
 * Thread: the {@link CqPoller}'s, whose block state this reads.
 */
final class CompressedCqe
{
    /** op_own bits [3:2], the CQE format (mlx5dv_get_cqe_format); MLX5_COMPRESSED there marks a title. */
    static final int FORMAT_MASK = 0x0c;
    static final int COMPRESSED = 0x0c;
    static final int MINI_CQE_SIZE = 8;
    /** op_own of a slot handed back: INVALID opcode, as libmlx5 initialises its CQs. */
    static final int INVALID_WORD = Cqe64.MLX5_CQE_INVALID << 4;

    private CompressedCqe()
    {
    }

    /** The byte offset in the ring of mini-CQE {@code i} of the block whose title is slot {@code title}. */
    static long miniOffset(final int title, final int i, final int cqeMask)
    {
        final int slot = title + (i < 8 ? 1 : (i & ~7));
        return ((long)(slot & cqeMask) << 6) + (long)(i & 7) * MINI_CQE_SIZE;
    }

    /**
     * A frame of a raw packet QP's or WQ's queue: the title's fields with the mini-CQE's byte count and hash or
     * checksum, then the queue's oldest WQE.
     */
    static void raw(final CqPoller p, final Completion c, final long title64, final long mini, final int format,
        final OrderedReceive rq)
    {
        final long m = RingStores.getLongBE(mini);
        final int first = (int)(m >>> 32);
        final long w10t = RingStores.getLongBE(title64 + Cqe64.RSS_HASH_TYPE_OFFSET);
        final long w18 = RingStores.getLongBE(title64 + Cqe64.FLAGS_RQPN_OFFSET);
        final boolean hash = format == Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH;
        // check_sum is bits 31..16 of the word at 0x10: the mini-CQE's, or none in the HASH format
        final long w10 = (w10t & ~0xffff_0000L) | (hash ? 0 : ((long)(first >>> 16) << 16));
        int wcFlags = 0;
        if (p.queues.rawCsumValid && (((int)(w18 >>> 24) & 0xff) & (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK)) ==
            (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK) && ((w18 >>> 18) & 3) == Cqe64.MLX5_CQE_L3_HDR_TYPE_IPV4)
        {
            wcFlags = WcOpcode.WC_IP_CSUM_OK;
        }
        c.rawFrame(w10, w18, wcFlags,
            (int)RingStores.getLongBE(title64 + Cqe64.SRQN_UIDX_OFFSET),
            (int)m,
            RingStores.getLongBE(title64 + Cqe64.TIMESTAMP_OFFSET),
            (int)(RingStores.getLongBE(title64 + Cqe64.SOP_DROP_QPN_OFFSET) >>> 32),
            hash ? first : (int)RingStores.getLongBE(title64 + Cqe64.RSS_HASH_RESULT_OFFSET - 4),
            rq.frameAddress(rq.tailSlot()));
        c.compressed = true;
        c.wrId = rq.complete();
    }

    /**
     * A frame of the striding queue: as {@link StridingCqe#decode(CqPoller, Completion, long, StridingReceive)}
     * with the title's fields, the mini-CQE's byte count (length and strides) and checksum or hash, and the stride
     * index the format gives.
     *
     * @param stride the stride index the block's bookkeeping expects next (formats without stride_idx)
     * @return the stride index after this frame's strides
     */
    static int striding(final CqPoller p, final Completion c, final long title64, final long mini, final int format,
        final int stride, final StridingReceive q)
    {
        final CqQueues queues = p.queues;
        final long m = RingStores.getLongBE(mini);
        final int first = (int)(m >>> 32);
        final int byteCnt = (int)m;
        final int strides = (byteCnt & Cqe64.MPRQ_STRIDE_NUM_MASK) >>> Cqe64.MPRQ_STRIDE_NUM_SHIFT;
        final int strideIndex = format == Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX ? first & 0xffff : stride;
        final boolean hash = format == Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH;
        final long w10t = RingStores.getLongBE(title64 + Cqe64.RSS_HASH_TYPE_OFFSET);
        c.rawFrame((w10t & ~0xffff_0000L) | (hash ? 0 : ((long)(first >>> 16) << 16)),
            RingStores.getLongBE(title64 + Cqe64.FLAGS_RQPN_OFFSET), 0,
            (int)RingStores.getLongBE(title64 + Cqe64.SRQN_UIDX_OFFSET),
            byteCnt & Cqe64.MPRQ_LEN_MASK,
            RingStores.getLongBE(title64 + Cqe64.TIMESTAMP_OFFSET),
            (int)(RingStores.getLongBE(title64 + Cqe64.SOP_DROP_QPN_OFFSET) >>> 32),
            hash ? first : (int)RingStores.getLongBE(title64 + Cqe64.RSS_HASH_RESULT_OFFSET - 4),
            q.frameAddress(strideIndex));
        c.compressed = true;
        c.wrId = q.tailWrId();
        c.strideIndex = strideIndex;
        c.strideCount = strides;
        c.releasedWqes = q.consume(strideIndex, strides) + queues.stridingFillers;
        queues.stridingFillers = 0;
        return strideIndex + strides;
    }
}
