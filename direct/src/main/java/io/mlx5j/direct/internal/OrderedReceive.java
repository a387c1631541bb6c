// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.lang.foreign.MemorySegment;

/**
 * The CQ side of a receive queue whose WQEs complete in posting order (a QP's own receive queue, or a plain WQ's):
 * each receive CQE, good or flushed, completes the oldest outstanding WQE (rdma-core v44 providers/mlx5/cq.c
 * handle_responder takes wq->tail). See {@link AttachedReceive} for who calls it.
 *
 * <p>Thread model: implemented by receive queues; called on the thread that polls the CQ the queue is attached to.
 */
public interface OrderedReceive extends AttachedReceive
{
    /**
     * {@return whether its CQEs carry the flow tag where other CQEs carry the QP number} That is a RAW_PACKET QP's
     * receive queue, or a WQ: the CQ serves this queue as its only receive queue.
     */
    boolean flowTagged();

    /**
     * libmlx5's MLX5_RX_CSUM_VALID: a RAW_PACKET QP's receives on a device with IBV_DEVICE_RAW_IP_CSUM report
     * IBV_WC_IP_CSUM_OK (verbs.c create_qp sets it; a WQ's receives never do).
     *
     * @return whether receives report IBV_WC_IP_CSUM_OK
     */
    boolean ipCsumValid();

    /**
     * Slot of the oldest outstanding WQE: the one the next receive completion is for.
     *
     * @return the slot
     */
    int tailSlot();

    /**
     * Address in the first data segment of the WQE in {@code slot}: where a received frame starts.
     *
     * @param slot the WQE's slot
     * @return the address
     */
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
     * @param slot the WQE's slot
     * @param src the CQ ring
     * @param srcOffset offset of the data in {@code src}
     * @param size bytes to copy
     * @return 0, or the ibv_wc_status of a copy that does not fit (IBV_WC_LOC_LEN_ERR)
     */
    int copyToRecvWqe(int slot, MemorySegment src, long srcOffset, int size);
}
