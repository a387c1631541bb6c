// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

/**
 * In {@link CqPoller#strict(boolean) strict mode} only: a CQE that {@link CqPoller} cannot give to a queue because its
 * QP never had a queue attached to the poller, or its opcode is one mlx5j does not decode (CQEs of detached or
 * destroyed queues are orphans, consumed in either mode). Nothing is lost: the CQE stays at the head of the CQ,
 * unconsumed, so that after {@link CqPoller#attach attaching} the right queue the next poll decodes it normally, or
 * {@link CqPoller#skip()} consumes it; until then every poll reports it again. A batch poll returns the completions
 * before it first. This exception carries a copy of the whole entry. Outside strict mode such a CQE is consumed and
 * counted instead ({@link CqPoller#unexpectedCqes()}, {@link CqPoller#lastUnexpected()}).
 *
 * <p>Thread model: thrown on the calling thread; immutable afterwards.
 */
public final class UnexpectedCqeException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /** The CQE's consumer index. */
    private final int consumerIndex;
    /** The QP number the CQE names. */
    private final int qpn;
    /** The CQE opcode. */
    private final int cqeOpcode;
    /** The CQE's wqe_counter. */
    private final int wqeCounter;
    /** A copy of the whole entry. */
    private final byte[] cqe;

    UnexpectedCqeException(final String message, final int consumerIndex, final int qpn, final int cqeOpcode,
        final int wqeCounter, final byte[] cqe)
    {
        super(message);
        this.consumerIndex = consumerIndex;
        this.qpn = qpn;
        this.cqeOpcode = cqeOpcode;
        this.wqeCounter = wqeCounter;
        this.cqe = cqe;
    }

    /** {@return the CQE's index (free-running consumer index of the CQ when it was reported)} */
    public int consumerIndex()
    {
        return consumerIndex;
    }

    /** {@return the local QP number the CQE names (low 24 bits of sop_drop_qpn)} */
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

    /** {@return A copy of the whole CQ entry (64 or 128 bytes, the mlx5_cqe64 at its end)} */
    public byte[] cqe()
    {
        return cqe.clone();
    }
}
