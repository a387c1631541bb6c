// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.memory.AddressSpace;
import io.mlx5j.memory.RingStores;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.CqeView;

/**
 * A frame received by the flow-tagged receive queue a CQ serves alone (a RAW_PACKET QP's, or a WQ's): the Ethernet
 * fields of its CQE (checksum flag, flow tag, stripped VLAN, header types, RSS hash), the timestamp, and where the
 * frame is, on top of what {@link ResponderCqe} decodes for any receive.
 */
final class RawReceiveCqe
{
    private RawReceiveCqe()
    {
    }

    /**
     * A plain frame (MLX5_CQE_RESP_SEND, no scatter-to-CQE), the market-data poll loop's common case: fills exactly the
     * fields {@link ResponderCqe}, {@link #ethernet} and {@link ResponderCqe#addressing} fill for such a CQE (and
     * zeroes the rest, as {@link Completion#clear()} would), from seven 8-byte reads at the CQE's address through
     * {@link RingStores}, whose CQ the poll call checked once, instead of fifteen reads through the view, each checked
     * (the 16-per-poll raw receive cost per frame what one per poll did; the reads by Unsafe instead of through
     * {@link AddressSpace#ALL} took about 1 ns more off a frame). The masks and shifts split mlx5_cqe64's big-endian
     * words at the offsets named in {@link Cqe64}.
     */
    static void decode(final CqPoller p, final Completion c, final long cqe64, final OrderedReceive rq)
    {
        // 0x10..0x17: rss_hash_type, ml_path, reserved (2), check_sum, slid
        final long w10 = RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_TYPE_OFFSET);
        // 0x18..0x1f: flags_rqpn, hds_ip_ext, l4_hdr_type_etc, vlan_info
        final long w18 = RingStores.getLongBE(cqe64 + Cqe64.FLAGS_RQPN_OFFSET);
        final int hdsIpExt = (int)(w18 >>> 24) & 0xff;
        int wcFlags = 0;
        if (p.queues.rawCsumValid && (hdsIpExt & (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK)) ==
            (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK) &&
            ((w18 >>> 18) & 3) == Cqe64.MLX5_CQE_L3_HDR_TYPE_IPV4)
        {
            wcFlags = WcOpcode.WC_IP_CSUM_OK;
        }
        // The 4-byte fields as the low or high half of the aligned big-endian 8-byte word that holds them: 0x08
        // (rss_hash_result at 0x0c), 0x20 (imm_inval_pkey at 0x24), 0x28 (byte_cnt at 0x2c), 0x38 (sop_drop_qpn).
        // Two methods, not one: together they are too big for C2 to inline into a poll loop (FreqInlineSize).
        c.rawFrame(w10, w18, wcFlags,
            (int)RingStores.getLongBE(cqe64 + Cqe64.SRQN_UIDX_OFFSET),
            (int)RingStores.getLongBE(cqe64 + Cqe64.BYTE_CNT_OFFSET - 4),
            RingStores.getLongBE(cqe64 + Cqe64.TIMESTAMP_OFFSET),
            (int)(RingStores.getLongBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET) >>> 32),
            (int)RingStores.getLongBE(cqe64 + Cqe64.RSS_HASH_RESULT_OFFSET - 4),
            rq.frameAddress(rq.tailSlot()));
        c.wrId = rq.complete();
    }

    /**
     * The Ethernet fields of a raw receive CQE the poller's view is at: IBV_WC_IP_CSUM_OK exactly as libmlx5 derives
     * it (cq.c get_csum_ok, for QPs with MLX5_RX_CSUM_VALID), the flow tag (mlx5_cq_read_flow_tag), the stripped
     * VLAN's TCI (mlx5_cq_read_wc_cvlan), L3/L4 header types, the RSS hash, and where the frame is: the first data
     * segment of the receive WQE in {@code slot}, whose buffer the device filled from its start.
     */
    static void ethernet(final CqPoller p, final Completion c, final int slot, final OrderedReceive rq)
    {
        final CqeView v = p.view;
        if (p.queues.rawCsumValid && v.ipCsumOk())
        {
            c.wcFlags |= WcOpcode.WC_IP_CSUM_OK;
        }
        c.flowTag = v.flowTag();
        c.cvlan = v.vlanInfo();
        c.l4HdrTypeEtc = v.l4HdrTypeEtc();
        c.hdsIpExt = v.hdsIpExt();
        c.rssHash = v.rssHashResult();
        c.rssHashType = v.rssHashType();
        c.frameAddress = rq.frameAddress(slot);
    }
}
