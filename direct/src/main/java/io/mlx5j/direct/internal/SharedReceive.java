// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.lang.foreign.MemorySegment;

/**
 * The CQ side of a shared receive queue: a CQE names the SRQ WQE it completes by wqe_counter, so completions may come
 * in any order (rdma-core providers/mlx5/cq.c handle_responder, srq.c mlx5_free_srq_wqe). See
 * {@link AttachedReceive} for who calls it.
 *
 * <p>Thread model: implemented by receive queues; called on the thread that polls the CQ the queue is attached to.
 */
public interface SharedReceive extends AttachedReceive
{
    /**
     * The WQE at {@code wqeCounter} completed: gives it back to the free list (linked now or at the next post, as the
     * running libmlx5 does).
     *
     * @param wqeCounter the CQE's wqe_counter
     * @return its wr_id
     * @throws IllegalStateException if that WQE is not outstanding (a corrupt CQ)
     */
    long complete(int wqeCounter);

    /**
     * A CQE of a QP that is gone (destroyed or detached) consumed the WQE at {@code wqeCounter}: gives the WQE back to
     * the free list, as libmlx5's CQ clean on QP destroy does, so the SRQ does not lose it; a WQE that is not
     * outstanding is left alone.
     *
     * @param wqeCounter the CQE's wqe_counter
     * @return whether a WQE was given back
     */
    boolean reclaim(int wqeCounter);

    /**
     * Scatter-to-CQE into the WQE at {@code wqeCounter}, as mlx5_copy_to_recv_srq (srq.c) does.
     *
     * @param wqeCounter the CQE's wqe_counter
     * @param src the CQ ring
     * @param srcOffset offset of the data in {@code src}
     * @param size bytes to copy
     * @return 0, or the ibv_wc_status of a copy that does not fit (IBV_WC_LOC_LEN_ERR)
     */
    int copyToRecvSrq(int wqeCounter, MemorySegment src, long srcOffset, int size);
}
