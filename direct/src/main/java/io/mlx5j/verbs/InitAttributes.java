// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/**
 * RESET to INIT: which port and P_Key the QP uses, and either what peers may do to local memory (RC/UC) or the
 * Q_Key (UD).
 */
public record InitAttributes(int port, int pkeyIndex, int accessFlags, int qkey)
{
    /** RC/UC: remote access as {@link Access} flags (only REMOTE_WRITE applies to UC). */
    public static InitAttributes connected(final int port, final int accessFlags)
    {
        return new InitAttributes(port, 0, accessFlags, 0);
    }

    /** UD: the Q_Key received datagrams must carry. */
    public static InitAttributes datagram(final int port, final int qkey)
    {
        return new InitAttributes(port, 0, 0, qkey);
    }
}
