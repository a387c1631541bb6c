// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/**
 * ADDR_ERROR: the address did not resolve to a local RDMA device and port (no emulated or real port owns it, or the
 * resolution timed out); status is minus an errno such as ETIMEDOUT or ENODEV.
 */
public final class CmAddressException extends CmException
{
    private static final long serialVersionUID = 1L;

    CmAddressException(final String step, final int status, final String message)
    {
        super(step, CmEventType.ADDR_ERROR, status, message);
    }
}
