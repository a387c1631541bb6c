// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.lang.foreign.MemorySegment;

/**
 * The CQ side of a receive queue whose WQEs complete in posting order (a QP's own receive queue, or a plain WQ's):
 * each receive CQE, good or flushed, completes the oldest outstanding WQE (rdma-core v44 providers/mlx5/cq.c
 * handle_responder takes wq->tail). See {@link AttachedReceive} for who calls it.
 */
public interface OrderedReceive extends AttachedReceive
{
    /**
     * Its CQEs carry the flow tag where other CQEs carry the QP number (a RAW_PACKET QP's receive queue, or a WQ):
     * the CQ serves this queue as its only receive queue.
     */
    boolean flowTagged();

    /**
     * libmlx5's MLX5_RX_CSUM_VALID: a RAW_PACKET QP's receives on a device with IBV_DEVICE_RAW_IP_CSUM report
     * IBV_WC_IP_CSUM_OK (verbs.c create_qp sets it; a WQ's receives never do).
     */
    boolean ipCsumValid();

    /** Slot of the oldest outstanding WQE: the one the next receive completion is for. */
    int tailSlot();

    /** Address in the first data segment of the WQE in {@code slot}: where a received frame starts. */
    long frameAddress(int slot);

    /**
     * Retires the oldest outstanding WQE.
     *
     * @return its wr_id
     * @throws IllegalStateException if none is outstanding (a corrupt CQ)
     */
    long complete();

    /**
     * Scatter-to-CQE: copies {@code size} bytes at {@code srcOffset} of {@code src} (the CQ ring) into the buffers of
     * the WQE in {@code slot}, as mlx5_copy_to_recv_wqe (qp.c) does.
     *
     * @return 0, or the ibv_wc_status of a copy that does not fit (IBV_WC_LOC_LEN_ERR)
     */
    int copyToRecvWqe(int slot, MemorySegment src, long srcOffset, int size);
}
