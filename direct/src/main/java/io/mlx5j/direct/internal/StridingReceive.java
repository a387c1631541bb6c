// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

/**
 * The CQ side of a striding (multi-packet) receive queue: a CQE names the first stride and the stride count of one
 * frame in the oldest WQE, or is a filler that uses up the WQE's remaining strides (DPDK drivers/net/mlx5 mlx5_rx.c
 * mlx5_rx_burst_mprq reads the same fields). Such a queue is the only receive queue of its CQ. See
 * {@link AttachedReceive} for who calls it.
 *
 * <p>Thread model: implemented by receive queues; called on the thread that polls the CQ the queue is attached to.
 */
public interface StridingReceive extends AttachedReceive
{
    /** {@return wr_id of the WQE the next CQE is for} */
    long tailWrId();

    /**
     * Where a frame starting at stride {@code strideIndex} of the oldest WQE is.
     *
     * @param strideIndex the first stride of the frame
     * @return the address
     */
    long frameAddress(int strideIndex);

    /**
     * A CQE consumed {@code strides} strides from {@code strideIndex} on of the oldest WQE.
     *
     * @param strideIndex the first stride of the frame
     * @param strides strides the frame consumed
     * @return 1 if that released the WQE, else 0
     * @throws IllegalStateException for a CQE that does not continue where the last one ended (a corrupt CQ)
     */
    int consume(int strideIndex, int strides);

    /**
     * An error CQE: the oldest WQE is done whatever its strides.
     *
     * @throws IllegalStateException if none is outstanding (a corrupt CQ)
     */
    void releaseOldest();
}
