// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A snapshot of the last CQE a {@link CqPoller} consumed as unexpected ({@link CqPoller#unexpectedCqes()}): what it
 * named, why no queue took it, and a copy of the whole entry. The poller overwrites it in place with the next one,
 * without allocating; all fields are zero while there was none. Read it on the polling thread.
 */
public final class UnexpectedCqe
{
    /** {@link #reason()}: a send CQE (good or error) whose QP never had a send queue attached to the poller. */
    public static final int NO_SEND_QUEUE = 1;
    /**
     * {@link #reason()}: a receive CQE (good or error) whose QP never had a receive queue or SRQ binding attached to
     * the poller, and no single SRQ or flow-tagged or striding queue took it.
     */
    public static final int NO_RECEIVE_QUEUE = 2;
    /** {@link #reason()}: a CQE opcode mlx5j does not decode. */
    public static final int UNKNOWN_OPCODE = 3;

    private final byte[] cqe;
    private int consumerIndex;
    private int qpn;
    private int cqeOpcode;
    private int wqeCounter;
    private int reason;

    UnexpectedCqe(final int cqeSize)
    {
        this.cqe = new byte[cqeSize];
    }

    void record(final int consumerIndex, final int qpn, final int cqeOpcode, final int wqeCounter, final int reason,
        final MemorySegment ring, final long at)
    {
        this.consumerIndex = consumerIndex;
        this.qpn = qpn;
        this.cqeOpcode = cqeOpcode;
        this.wqeCounter = wqeCounter;
        this.reason = reason;
        MemorySegment.copy(ring, ValueLayout.JAVA_BYTE, at, cqe, 0, cqe.length);
    }

    /** {@return the CQE's index: the free-running consumer index of the CQ when it was consumed} */
    public int consumerIndex()
    {
        return consumerIndex;
    }

    /**
     * {@return the QP number the CQE names (the low 24 bits of sop_drop_qpn; a flow tag for a raw or striding receive)}
     */
    public int qpn()
    {
        return qpn;
    }

    /** {@return the CQE opcode (the high nibble of op_own: MLX5_CQE_REQ, MLX5_CQE_RESP_SEND, ...)} */
    public int cqeOpcode()
    {
        return cqeOpcode;
    }

    /** {@return wqe_counter: the WQE (send, or SRQ) the CQE completes} */
    public int wqeCounter()
    {
        return wqeCounter;
    }

    /**
     * Why no queue took it: {@link #NO_SEND_QUEUE}, {@link #NO_RECEIVE_QUEUE}, {@link #UNKNOWN_OPCODE}; 0: none.
     *
     * @return the reason code
     */
    public int reason()
    {
        return reason;
    }

    /** {@return bytes of the entry: the CQE size (64 or 128; the mlx5_cqe64 is at its end)} */
    public int cqeLength()
    {
        return cqe.length;
    }

    /**
     * Copies the whole entry into {@code dst} from {@code offset} on, without allocating.
     *
     * @param dst the destination array
     * @param offset where in {@code dst} the copy starts
     */
    public void copyCqe(final byte[] dst, final int offset)
    {
        System.arraycopy(cqe, 0, dst, offset, cqe.length);
    }

    /** {@return A copy of the whole entry (allocates; {@link #copyCqe} does not)} */
    public byte[] cqe()
    {
        return cqe.clone();
    }

    /** The reason in words. */
    static String describe(final int reason)
    {
        return switch (reason)
        {
            case NO_SEND_QUEUE -> "a send CQE, and no send queue of that QP was attached";
            case NO_RECEIVE_QUEUE -> "a receive CQE, and no receive queue or SRQ of that QP was attached";
            case UNKNOWN_OPCODE -> "a CQE whose opcode mlx5j does not decode";
            default -> "no unexpected CQE";
        };
    }

    @Override
    public String toString()
    {
        return "UnexpectedCqe(ci " + consumerIndex + ", qpn 0x" + Integer.toHexString(qpn) + ", opcode " + cqeOpcode +
            ", wqe_counter " + wqeCounter + ": " + describe(reason) + ")";
    }
}
