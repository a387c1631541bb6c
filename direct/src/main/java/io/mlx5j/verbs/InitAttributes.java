// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/**
 * RESET to INIT: which port and P_Key the QP uses, and either what peers may do to local memory (RC/UC) or the
 * Q_Key (UD).
 *
 * @param port the port number, from 1
 * @param pkeyIndex the P_Key table index
 * @param accessFlags remote access as {@link Access} flags (RC/UC)
 * @param qkey the Q_Key (UD)
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record InitAttributes(int port, int pkeyIndex, int accessFlags, int qkey)
{
    /**
     * RC/UC: remote access as {@link Access} flags (only REMOTE_WRITE applies to UC).
     *
     * @param port the port number, from 1
     * @param accessFlags remote access as {@link Access} flags (RC/UC)
     * @return the attributes
     */
    public static InitAttributes connected(final int port, final int accessFlags)
    {
        return new InitAttributes(port, 0, accessFlags, 0);
    }

    /**
     * UD: the Q_Key received datagrams must carry.
     *
     * @param port the port number, from 1
     * @param qkey the Q_Key (UD)
     * @return the attributes
     */
    public static InitAttributes datagram(final int port, final int qkey)
    {
        return new InitAttributes(port, 0, 0, qkey);
    }
}
