// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/**
 * UNREACHABLE (the peer's CM never answered the request: no process there, or a dead one) or CONNECT_ERROR (the
 * connection could not be completed locally, e.g. the QP refused the transition); status is minus an errno, usually
 * ETIMEDOUT.
 */
public final class CmUnreachableException extends CmException
{
    private static final long serialVersionUID = 1L;

    CmUnreachableException(final String step, final CmEventType event, final int status, final String message)
    {
        super(step, event, status, message);
    }
}
