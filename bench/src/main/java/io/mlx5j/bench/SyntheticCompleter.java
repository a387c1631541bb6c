// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.verbs.CqRing;
import io.mlx5j.wqe.Cqe64;

/**
 * Stands in for the NIC: writes one successful requester CQE per signaled WQE into the CQ ring, as libmlx5's
 * ibv_poll_cq and mlx5j's poller both expect it (rdma-core v44 providers/mlx5/cq.c mlx5_parse_cqe, MLX5_CQE_REQ
 * with cqe_version 1; struct mlx5_cqe64 in mlx5dv.h):
 * <pre>
 *   0x20 srqn_uidx     the QP's user index (cqe_version 1 looks the QP up by it, not by qpn)
 *   0x2c byte_cnt      0 (only RDMA READ / atomics report a length on the requester side)
 *   0x38 sop_drop_qpn  WQE opcode &lt;&lt; 24 | qpn (libmlx5 derives the ibv_wc opcode from the top byte)
 *   0x3c wqe_counter   wqe_index of the signaled WQE's first WQEBB
 *   0x3f op_own        MLX5_CQE_REQ &lt;&lt; 4 | owner, owner = (producer index / cqe_cnt) &amp; 1, stored last
 * </pre>
 * Every JMH variant, mlx5j or libmlx5, completes through this one class, so the completer's cost is identical
 * across them. The remaining bytes of each slot stay zero (libmlx5 zeroes the buffer; nothing else writes it).
 * <p>
 * The stores are plain ones at the ring's address ({@link CqeStores}), as the C loop's completer in libmlx5_loop.c
 * stores through a pointer: the completer stands in for the NIC, which is part of neither stack, so it must not cost
 * the Java rows the bounds and alignment checks of five segment accesses per CQE that the C rows do not pay. The ring
 * outlives the completer: the benchmark closes the CQ only in its tear-down.
 * <p>
 * Confinement: the benchmark thread only (it plays the NIC between posts and polls; no other thread touches the CQ).
 */
public final class SyntheticCompleter
{

    private final long base;
    private final int cqeSize;
    private final int mask;
    private final int logCqeCnt;
    private final int qpn;
    private final int uidx;
    private int producer;

    /**
     * @param ring the CQ's raw ring ({@code CompletionQueue.ring()})
     * @param qpn  the QP whose WQEs complete here
     * @param uidx that QP's user index ({@link EmulatedQp#uidx})
     */
    public SyntheticCompleter(final CqRing ring, final int qpn, final int uidx)
    {
        this.base = ring.buf().address();
        this.cqeSize = ring.cqeSize();
        this.mask = ring.cqeCnt() - 1;
        this.logCqeCnt = Integer.numberOfTrailingZeros(ring.cqeCnt());
        this.qpn = qpn;
        this.uidx = uidx;
    }

    /**
     * The NIC finished the signaled WQE at {@code wqeCounter}: publish its CQE in the next slot.
     *
     * @param wqeCounter wqe_index of the WQE (low 16 bits of the producer counter when it was posted)
     * @param wqeOpcode  the WQE's MLX5_OPCODE_* (RDMA_WRITE 0x08, SEND 0x0a)
     */
    public void complete(final int wqeCounter, final int wqeOpcode)
    {
        complete(qpn, uidx, wqeCounter, wqeOpcode);
    }

    /**
     * {@link #complete(int, int)} for another QP on the same CQ (the many-QP rows: one CQ, N send queues).
     *
     * @param qpn        the QP the CQE names
     * @param uidx       that QP's user index ({@link EmulatedQps#uidx})
     * @param wqeCounter wqe_index of the WQE on that QP
     * @param wqeOpcode  the WQE's MLX5_OPCODE_*
     */
    public void complete(final int qpn, final int uidx, final int wqeCounter, final int wqeOpcode)
    {
        final int pi = producer;
        final long cqe64 = base + (long) (pi & mask) * cqeSize + cqeSize - Cqe64.LENGTH;
        CqeStores.putIntBE(cqe64 + Cqe64.SRQN_UIDX_OFFSET, uidx & 0xffffff);
        CqeStores.putIntBE(cqe64 + Cqe64.BYTE_CNT_OFFSET, 0);
        CqeStores.putIntBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET, (wqeOpcode << 24) | (qpn & 0xffffff));
        CqeStores.putShortBE(cqe64 + Cqe64.WQE_COUNTER_OFFSET, (short) wqeCounter);
        // Release: a poller that sees the new owner bit must see the body written above (the NIC's DMA order).
        CqeStores.putByteRelease(cqe64 + Cqe64.OP_OWN_OFFSET,
            (byte) ((Cqe64.MLX5_CQE_REQ << 4) | ((pi >>> logCqeCnt) & 1)));
        producer = pi + 1;
    }

    /** CQEs written so far (free-running). */
    public int producer()
    {
        return producer;
    }
}
