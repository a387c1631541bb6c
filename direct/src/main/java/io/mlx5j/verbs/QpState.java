// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/** QP state (enum ibv_qp_state), in its numeric order. */
public enum QpState
{
    RESET, INIT, RTR, RTS, SQD, SQE, ERR;

    /** The enum ibv_qp_state value. */
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
