// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * The only exception {@link CqeView} throws for CQE contents: the bytes cannot be a valid completion (an opcode
 * that is not a work completion, scatter-to-CQE data larger than its area, or 64-byte scatter in a 64-byte CQE).
 * Thrown only when a caller asks for status or scatter data of such a CQE; the raw field accessors never throw.
 *
 * <p>Thread model: created and thrown on the polling thread that read the CQE; immutable afterwards.
 */
public final class MalformedCqeException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong with the CQE
     */
    public MalformedCqeException(final String message)
    {
        super(message);
    }
}
