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
 *
 * <p>Thread model: thrown on the calling thread; immutable afterwards.
 */
public final class VerbsException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The failing C call. */
    private final String call;
    /** The errno it returned or set. */
    private final int errno;

    /**
     * An exception for {@code call} failing with {@code errno}.
     *
     * @param call the C function that failed
     * @param errno its errno
     */
    public VerbsException(final String call, final int errno)
    {
        this(call, errno, null);
    }

    /**
     * An exception for {@code call} failing with {@code errno}, with a detail for the message.
     *
     * @param call the C function that failed
     * @param errno its errno
     * @param detail more context, or null
     */
    public VerbsException(final String call, final int errno, final String detail)
    {
        super(call + " failed: errno " + errno + " (" + Errno.name(errno) + ")"
            + (detail == null ? "" : ": " + detail));
        this.call = call;
        this.errno = errno;
    }

    /** {@return the C function that failed, e.g. {@code ibv_modify_qp}} */
    public String call()
    {
        return call;
    }

    /** {@return the errno it reported; 0 if the library failed without setting one} */
    public int errno()
    {
        return errno;
    }
}
