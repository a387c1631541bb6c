// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.verbs.CqRing;
import io.mlx5j.wqe.Cqe64;

/**
 * Stands in for the NIC on the receive side of a raw packet QP: writes one successful receive CQE per frame into
 * the CQ ring, as libmlx5's ibv_poll_cq / ibv_start_poll and mlx5j's CqPoller expect it for a plain receive queue
 * (rdma-core v44 providers/mlx5/cq.c handle_responder and get_csum_ok; struct mlx5_cqe64 in mlx5dv.h):
 * <pre>
 *   0x1c hds_ip_ext       L3_OK | L4_OK (with an IPv4 header: IBV_WC_IP_CSUM_OK)
 *   0x1d l4_hdr_type_etc  L4 type UDP &lt;&lt; 4 | L3 type IPv4 &lt;&lt; 2
 *   0x20 srqn_uidx        the QP's user index (cqe_version 1 looks the QP up by it)
 *   0x2c byte_cnt         the frame's length
 *   0x30 timestamp        NIC clock ticks, advancing by {@link RawWorkload#TICKS_PER_FRAME} per frame
 *   0x38 sop_drop_qpn     0: no flow tag (the low 24 bits are the tag of the steering rule that matched)
 *   0x3c wqe_counter      the receive WQE's index (libmlx5 and mlx5j complete the oldest receive WQE anyway)
 *   0x3f op_own           MLX5_CQE_RESP_SEND &lt;&lt; 4 | owner (= (producer index / cqe_cnt) &amp; 1), stored last
 * </pre>
 * Every raw receive benchmark, mlx5j or libmlx5, completes through this one class, so its cost is identical across
 * variants. The other bytes of each slot stay zero (libmlx5 zeroes the buffer; nothing else writes it).
 * <p>
 * The stores are plain ones at the ring's address ({@link CqeStores}), as in {@link SyntheticCompleter} and for the
 * same reason: the C loop's completer (libmlx5_raw.h raw_complete) stores through a pointer, and the stand-in NIC
 * must not charge the Java rows the checks of eight segment accesses per frame. The ring outlives the completer: the
 * benchmark closes the CQ only in its tear-down.
 * <p>
 * Confinement: the benchmark thread only.
 */
public final class RawRecvCompleter
{

    private static final byte CSUM_OK = (byte) (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK);
    /** op_own bits 3..2 = 3 (MLX5_COMPRESSED, DPDK mlx5_prm.h): a title CQE. */
    private static final int MLX5_COMPRESSED_FORMAT = 0x0c;
    private static final byte UDP_IPV4 = (byte) (Cqe64.CQE_L4_HDR_TYPE_UDP << 4 | Cqe64.MLX5_CQE_L3_HDR_TYPE_IPV4 << 2);

    private final long base;
    private final int cqeSize;
    private final int mask;
    private final int logCqeCnt;
    private final int uidx;
    private int producer;
    private long ticks;
    private long cqeBytes;

    /**
     * @param ring  the receive CQ's raw ring ({@code CompletionQueue.ring()})
     * @param uidx  the QP's user index ({@link EmulatedRawQp#uidx})
     * @param ticks the first frame's timestamp
     */
    public RawRecvCompleter(final CqRing ring, final int uidx, final long ticks)
    {
        this.base = ring.buf().address();
        this.cqeSize = ring.cqeSize();
        this.mask = ring.cqeCnt() - 1;
        this.logCqeCnt = Integer.numberOfTrailingZeros(ring.cqeCnt());
        this.uidx = uidx;
        this.ticks = ticks;
    }

    /** A frame of {@code byteCnt} bytes arrived in receive WQE {@code wqeCounter}: publish its CQE. */
    public void complete(final int wqeCounter, final int byteCnt)
    {
        final int pi = producer;
        final long cqe64 = base + (long) (pi & mask) * cqeSize + cqeSize - Cqe64.LENGTH;
        final long ts = ticks += RawWorkload.TICKS_PER_FRAME;
        CqeStores.putByte(cqe64 + Cqe64.HDS_IP_EXT_OFFSET, CSUM_OK);
        CqeStores.putByte(cqe64 + Cqe64.L4_HDR_TYPE_ETC_OFFSET, UDP_IPV4);
        CqeStores.putIntBE(cqe64 + Cqe64.SRQN_UIDX_OFFSET, uidx & 0xffffff);
        CqeStores.putIntBE(cqe64 + Cqe64.BYTE_CNT_OFFSET, byteCnt);
        CqeStores.putLongBE(cqe64 + Cqe64.TIMESTAMP_OFFSET, ts);
        CqeStores.putIntBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET, 0);
        CqeStores.putShortBE(cqe64 + Cqe64.WQE_COUNTER_OFFSET, (short) wqeCounter);
        // Release: a poller that sees the new owner bit must see the body written above (the NIC's DMA order).
        CqeStores.putByteRelease(cqe64 + Cqe64.OP_OWN_OFFSET,
            (byte) ((Cqe64.MLX5_CQE_RESP_SEND << 4) | ((pi >>> logCqeCnt) & 1)));
        producer = pi + 1;
        cqeBytes += Cqe64.LENGTH;
    }

    /**
     * {@code n} frames (2 .. 64) of {@code byteCnt} bytes arrived in receive WQEs {@code wqeCounter} on: publish them
     * as one compressed block in the CSUM format, as the emulated device writes it (src/engine/eng_cqe.h): the
     * mini-CQE arrays first (be16 check_sum {@code csum}, be16 0, be32 byte_cnt; completion i in slot pi + 1 when
     * i &lt; 8, else pi + (i &amp; ~7)), then the title: the plain CQE of the first frame with byte_cnt = n and the
     * MLX5_COMPRESSED format bits, op_own stored last. Slots the block skips are not written; the poller hands every
     * slot back. A CQ of 64-byte CQEs only.
     */
    public void completeBlock(final int wqeCounter, final int n, final int byteCnt, final short csum)
    {
        final int pi = producer;
        for (int first = 0; first < n; first = (first | 7) + 1)
        {
            final long slot = base + (long) ((pi + (first < 8 ? 1 : first)) & mask) * Cqe64.LENGTH;
            final int last = Math.min((first | 7) + 1, n);
            for (int i = first; i < last; i++)
            {
                final long mini = slot + (long) (i & 7) * 8;
                CqeStores.putIntBE(mini, (csum & 0xffff) << 16);
                CqeStores.putIntBE(mini + 4, byteCnt);
            }
            cqeBytes += Cqe64.LENGTH;
        }
        final long cqe64 = base + (long) (pi & mask) * Cqe64.LENGTH;
        // the whole title, as the device writes it: the slot may hold an earlier block's mini-CQEs
        for (int at = 0; at < Cqe64.SOP_DROP_QPN_OFFSET; at += 8)
        {
            CqeStores.putLongBE(cqe64 + at, 0);
        }
        CqeStores.putByte(cqe64 + Cqe64.HDS_IP_EXT_OFFSET, CSUM_OK);
        CqeStores.putByte(cqe64 + Cqe64.L4_HDR_TYPE_ETC_OFFSET, UDP_IPV4);
        CqeStores.putIntBE(cqe64 + Cqe64.SRQN_UIDX_OFFSET, uidx & 0xffffff);
        CqeStores.putIntBE(cqe64 + Cqe64.BYTE_CNT_OFFSET, n);
        CqeStores.putLongBE(cqe64 + Cqe64.TIMESTAMP_OFFSET, ticks += RawWorkload.TICKS_PER_FRAME * n);
        CqeStores.putIntBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET, 0);
        CqeStores.putShortBE(cqe64 + Cqe64.WQE_COUNTER_OFFSET, (short) wqeCounter);
        CqeStores.putByteRelease(cqe64 + Cqe64.OP_OWN_OFFSET,
            (byte) ((Cqe64.MLX5_CQE_RESP_SEND << 4) | MLX5_COMPRESSED_FORMAT | ((pi >>> logCqeCnt) & 1)));
        cqeBytes += Cqe64.LENGTH;
        producer = pi + n;
    }

    /** CQE bytes written so far: 64 per plain CQE; per block the title and its mini-CQE arrays. */
    public long cqeBytes()
    {
        return cqeBytes;
    }

    /** The timestamp of the last CQE written. */
    public long lastTicks()
    {
        return ticks;
    }
}
