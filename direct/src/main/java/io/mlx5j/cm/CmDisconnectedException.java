// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/** The connection ended while a step waited on it: DISCONNECTED (the peer disconnected or died), DEVICE_REMOVAL. */
public final class CmDisconnectedException extends CmException
{
    private static final long serialVersionUID = 1L;

    CmDisconnectedException(final String step, final CmEventType event, final int status, final String message)
    {
        super(step, event, status, message);
    }
}
