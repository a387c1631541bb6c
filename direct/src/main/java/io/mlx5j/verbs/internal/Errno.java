// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs.internal;

/**
 * Linux errno names for the values libibverbs reports, so exception messages can be read without a table.
 *
 * <p>Thread model: constants only; any thread.
 */
public final class Errno
{
    /** {@code EPERM} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EPERM = 1;
    /** {@code ENOENT} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int ENOENT = 2;
    /** {@code EINTR} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EINTR = 4;
    /** {@code EIO} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EIO = 5;
    /** {@code EAGAIN} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EAGAIN = 11;
    /** {@code ENOMEM} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int ENOMEM = 12;
    /** {@code EACCES} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EACCES = 13;
    /** {@code EFAULT} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EFAULT = 14;
    /** {@code EBUSY} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EBUSY = 16;
    /** {@code EEXIST} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EEXIST = 17;
    /** {@code ENODEV} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int ENODEV = 19;
    /** {@code EINVAL} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EINVAL = 22;
    /** {@code ENOSPC} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int ENOSPC = 28;
    /** {@code ENOSYS} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int ENOSYS = 38;
    /** {@code EOPNOTSUPP} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EOPNOTSUPP = 95;
    /** {@code EPROTONOSUPPORT} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int EPROTONOSUPPORT = 93;
    /** {@code ETIMEDOUT} (Linux asm-generic/errno-base.h, errno.h). */
    public static final int ETIMEDOUT = 110;

    private Errno()
    {
    }

    /**
     * The symbolic name of an errno value.
     *
     * @param errno the errno value
     * @return the name, e.g. {@code "EINVAL"}
     */
    public static String name(final int errno)
    {
        return switch (errno)
        {
            case 0 -> "no errno set";
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOSPC -> "ENOSPC";
            case ENOSYS -> "ENOSYS";
            case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case ETIMEDOUT -> "ETIMEDOUT";
            default -> "errno " + errno;
        };
    }
}
