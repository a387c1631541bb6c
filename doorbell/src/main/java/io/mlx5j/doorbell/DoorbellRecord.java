// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import io.mlx5j.memory.AddressStores;
import io.mlx5j.memory.Be;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.doorbell.DbrecDescriptor.MLX5_RCV_DBR_OFFSET;
import static io.mlx5j.doorbell.DbrecDescriptor.MLX5_SND_DBR_OFFSET;
import static io.mlx5j.doorbell.DbrecDescriptor.WQ_COUNTER_MASK;

/**
 * The doorbell record of a QP or SRQ ({@code mlx5dv_qp.dbrec}, {@code mlx5dv_srq.dbrec}): where the NIC reads how far
 * the producer has written. Layout in {@link DbrecDescriptor}.
 *
 * <p>Thread model: the send word belongs to the SQ's posting thread, the receive word to the RQ/SRQ's posting
 * thread; the two words may be written concurrently by two threads, never one word by two threads.
 */
public final class DoorbellRecord
{
    private final MemorySegment dbrec;
    /** The send counter's address, for {@link #sendCounterAt} (native records only). */
    private final long sendWord;

    /**
     * Wraps a QP's doorbell record. Any thread may construct it.
     *
     * @param dbrec at least {@link DbrecDescriptor#LENGTH} bytes, 4-byte aligned (native dbrec or a long[]-backed
     *              heap segment in tests)
     * @throws IllegalArgumentException if {@code dbrec} is too small or not 4-byte aligned
     */
    public DoorbellRecord(final MemorySegment dbrec)
    {
        if (dbrec.byteSize() < DbrecDescriptor.LENGTH)
        {
            throw new IllegalArgumentException("doorbell record needs " + DbrecDescriptor.LENGTH
                + " bytes, segment has "
                + dbrec.byteSize());
        }
        if ((dbrec.address() & 3) != 0)
        {
            throw new IllegalArgumentException("doorbell record must be 4-byte aligned: " + dbrec);
        }
        this.dbrec = dbrec;
        this.sendWord = dbrec.address() + MLX5_SND_DBR_OFFSET;
    }

    /** {@return the record's memory} */
    public MemorySegment segment()
    {
        return dbrec;
    }

    /**
     * Publish the send queue producer counter: {@code dbrec[MLX5_SND_DBR] = htobe32(cur_post & 0xffff)}, after the
     * WQE bytes (the caller's earlier stores) are ordered before it.
     *
     * @param curPost free-running WQEBB producer counter just past the last WQE posted
     */
    public void sendCounter(final int curPost)
    {
        // The NIC may fetch every WQEBB this counter covers the moment it sees it: WQE bytes go first.
        Dma.toDevice();
        Be.BE32.set(dbrec, (long) MLX5_SND_DBR_OFFSET, curPost & WQ_COUNTER_MASK);
    }

    /**
     * {@link #sendCounter}, stored by address ({@link AddressStores}): for {@link SendDoorbell#ringLive}, whose
     * caller has checked that the record is alive. Only for a native record, when {@link AddressStores#ENABLED}.
     */
    void sendCounterAt(final int curPost)
    {
        Dma.toDevice();
        AddressStores.putIntBE(sendWord, curPost & WQ_COUNTER_MASK);
    }

    /**
     * Publish the receive queue (or SRQ) counter: {@code dbrec[MLX5_RCV_DBR] = htobe32(head & 0xffff)}. Receive
     * queues have no doorbell; this store alone hands the new receive WQEs to the NIC.
     *
     * @param head free-running receive WQE counter just past the last receive WQE posted
     */
    public void recvCounter(final int head)
    {
        // Scatter entries first: a packet arriving right after this store lands in the buffers they describe.
        Dma.toDevice();
        Be.BE32.set(dbrec, (long) MLX5_RCV_DBR_OFFSET, head & WQ_COUNTER_MASK);
    }
}
