// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import java.time.Duration;

/**
 * A step's own timeout ran out before the CM reported its outcome. By then mlx5j has stopped the attempt (the id
 * is destroyed, the QP closed), so nothing of it lingers.
 */
public final class CmTimeoutException extends CmException
{
    private static final long serialVersionUID = 1L;

    /** The step's timeout. */
    private final Duration timeout;

    CmTimeoutException(final String step, final String awaited, final Duration timeout)
    {
        super(step, null, 0, step + ": no " + awaited + " within " + timeout.toMillis() + " ms");
        this.timeout = timeout;
    }

    /**
     * The step's timeout.
     *
     * @return the time waited without the awaited event
     */
    public Duration timeout()
    {
        return timeout;
    }
}
