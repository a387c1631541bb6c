// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.verbs.internal.Errno;

/**
 * A libibverbs / libmlx5 call failed. Carries the C function name and the errno it reported (the return value for
 * verbs that return an errno, the captured {@code errno} for those that return NULL or -1), so a failure reads like
 * {@code ibv_create_qp failed: errno 12 (ENOMEM)}.
 * <p>
 * Unchecked: every control-path call can fail for resource reasons the caller cannot recover from locally, and the
 * data path never throws it.
 */
public final class VerbsException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    public VerbsException(final String call, final int errno)
    {
        this(call, errno, null);
    }

    public VerbsException(final String call, final int errno, final String detail)
    {
        super(call + " failed: errno " + errno + " (" + Errno.name(errno) + ")"
            + (detail == null ? "" : ": " + detail));
        this.call = call;
        this.errno = errno;
    }

    /** The C function that failed, e.g. {@code ibv_modify_qp}. */
    public String call()
    {
        return call;
    }

    /** The errno it reported; 0 if the library failed without setting one. */
    public int errno()
    {
        return errno;
    }
}
