// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

/** Bad command line: the tool prints the message and the usage and exits with status 2. */
public final class UsageException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public UsageException(final String message)
    {
        super(message);
    }
}
