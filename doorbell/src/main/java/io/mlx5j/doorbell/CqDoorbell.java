// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import io.mlx5j.memory.Be;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.doorbell.DbrecDescriptor.CQ_CI_MASK;
import static io.mlx5j.doorbell.DbrecDescriptor.MLX5_CQ_ARM_DB_OFFSET;
import static io.mlx5j.doorbell.DbrecDescriptor.MLX5_CQ_SET_CI_OFFSET;
import static io.mlx5j.doorbell.UarDescriptor.MLX5_CQ_DB_REQ_NOT;
import static io.mlx5j.doorbell.UarDescriptor.MLX5_CQ_DB_REQ_NOT_SOL;
import static io.mlx5j.doorbell.UarDescriptor.MLX5_CQ_DOORBELL;

/**
 * A CQ's consumer-index record and arm doorbell ({@code mlx5dv_cq.dbrec} and {@code mlx5dv_cq.cq_uar}), laid out as
 * rdma-core v44 providers/mlx5/cq.c update_cons_index and mlx5_arm_cq lay them out (see {@link DbrecDescriptor} and
 * {@link UarDescriptor}).
 *
 * <p>Thread model: one polling thread per instance; it owns {@code arm_sn}. The arm doorbell is an 8-byte store to
 * the UAR page, which is atomic on x86-64, so several CQs sharing one {@code cq_uar} page need no lock.
 */
public final class CqDoorbell
{
    private final MemorySegment dbrec;
    private final MemorySegment cqUar;
    private final int cqn;
    private int armSn;

    /**
     * Binds a CQ's doorbell record and arm register. Any thread may construct it; only the polling thread may use it.
     *
     * @param dbrec  the CQ's doorbell record, at least 8 bytes, 4-byte aligned
     * @param cqUar  the UAR page the CQ arms through, at least {@code MLX5_CQ_DOORBELL + 8} bytes, 8-byte aligned
     * @param cqn    the CQ number sent with every arm
     * @throws IllegalArgumentException if a segment is too small or misaligned
     */
    public CqDoorbell(final MemorySegment dbrec, final MemorySegment cqUar, final int cqn)
    {
        if (dbrec.byteSize() < DbrecDescriptor.LENGTH || (dbrec.address() & 3) != 0)
        {
            throw new IllegalArgumentException("CQ doorbell record needs 8 bytes, 4-byte aligned: " + dbrec);
        }
        if (cqUar.byteSize() < MLX5_CQ_DOORBELL + 8 || (cqUar.address() & 7) != 0)
        {
            throw new IllegalArgumentException("CQ UAR needs " + (MLX5_CQ_DOORBELL + 8) + " bytes, 8-byte aligned: "
                + cqUar);
        }
        this.dbrec = dbrec;
        this.cqUar = cqUar;
        this.cqn = cqn;
    }

    /**
     * Tell the NIC how far the CQ has been consumed: {@code dbrec[MLX5_CQ_SET_CI] = htobe32(ci & 0xffffff)}. Call once
     * per poll batch, after the last CQE of the batch has been read.
     *
     * @param consumerIndex free-running count of CQEs consumed
     */
    public void consumerIndex(final int consumerIndex)
    {
        // Release: the CQE reads above cannot move below this store. Otherwise the NIC, seeing the slot freed, could
        // overwrite a CQE that is still being decoded.
        Be.BE32.setRelease(dbrec, (long) MLX5_CQ_SET_CI_OFFSET, consumerIndex & CQ_CI_MASK);
    }

    /**
     * Request one completion event ({@code ibv_req_notify_cq}): write the arm word to {@code dbrec[MLX5_CQ_ARM_DB]},
     * then the 64-bit doorbell {@code arm word << 32 | cqn} to {@code cq_uar + MLX5_CQ_DOORBELL}.
     *
     * @param consumerIndex  the consumer index up to which CQEs have been consumed
     * @param solicitedOnly  true for {@code MLX5_CQ_DB_REQ_NOT_SOL}, false for {@code MLX5_CQ_DB_REQ_NOT}
     */
    public void arm(final int consumerIndex, final boolean solicitedOnly)
    {
        final int word = UarDescriptor.armWord(armSn, solicitedOnly ? MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT,
            consumerIndex);
        Be.BE32.set(dbrec, (long) MLX5_CQ_ARM_DB_OFFSET, word);
        // The NIC compares the doorbell with the record: the record must be visible before the MMIO store.
        Dma.wcStart();
        Be.BE64.setOpaque(cqUar, (long) MLX5_CQ_DOORBELL, UarDescriptor.armDoorbell(word, cqn));
        // Do not let the arm sit in the WC buffer: the event it requests could otherwise be missed for a long time.
        Dma.wcFlush();
    }

    /**
     * Count a completion event received for this CQ (libmlx5 mlx5_cq_event: {@code arm_sn++}), so the next arm
     * carries a new sequence number.
     */
    public void eventReceived()
    {
        armSn++;
    }

    /** {@return the current arm sequence number (low 2 bits are sent)} */
    public int armSn()
    {
        return armSn;
    }
}
