// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/** A librdmacm call returned -1; carries the C function and the errno it set. */
public final class CmCallException extends CmException
{
    private static final long serialVersionUID = 1L;

    /** The C function that failed. */
    private final String call;
    /** The errno it set. */
    private final int errno;

    CmCallException(final String step, final String call, final int errno)
    {
        super(step, null, 0, step + ": " + call + " failed: errno " + errno + " (" + CmStatus.errnoName(errno) + ")");
        this.call = call;
        this.errno = errno;
    }

    /**
     * The C function that failed.
     *
     * @return its name, e.g. {@code rdma_resolve_addr}
     */
    public String call()
    {
        return call;
    }

    /**
     * The errno the C function set.
     *
     * @return a positive Linux errno, e.g. 98 (EADDRINUSE)
     */
    public int errno()
    {
        return errno;
    }
}
