// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/**
 * QP state (enum ibv_qp_state), in its numeric order.
 *
 * <p>Thread model: immutable; any thread.
 */
public enum QpState
{
    /** {@code IBV_QPS_RESET}: just created, or reset. */
    RESET,
    /** {@code IBV_QPS_INIT}: initialised; receives may be posted. */
    INIT,
    /** {@code IBV_QPS_RTR}: ready to receive. */
    RTR,
    /** {@code IBV_QPS_RTS}: ready to send. */
    RTS,
    /** {@code IBV_QPS_SQD}: send queue drained. */
    SQD,
    /** {@code IBV_QPS_SQE}: send queue error. */
    SQE,
    /** {@code IBV_QPS_ERR}: error; work requests complete with flush errors. */
    ERR;

    /** {@return the enum ibv_qp_state value} */
    public int value()
    {
        return ordinal();
    }

    static QpState of(final int value)
    {
        final QpState[] all = values();
        if (value < 0 || value >= all.length)
        {
            throw new IllegalStateException("unknown ibv_qp_state " + value);
        }
        return all[value];
    }
}
