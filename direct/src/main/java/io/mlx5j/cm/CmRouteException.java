// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/**
 * ROUTE_ERROR: no path to the resolved destination (no path record on IB, no neighbour on RoCE);
 * status is minus an errno.
 */
public final class CmRouteException extends CmException
{
    private static final long serialVersionUID = 1L;

    CmRouteException(final String step, final int status, final String message)
    {
        super(step, CmEventType.ROUTE_ERROR, status, message);
    }
}
