// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/**
 * INIT to RTR for RC/UC: the path to the peer and where its packet sequence starts. (UD needs no attributes.)
 *
 * @param pathMtu          enum ibv_mtu (1 = 256 ... 5 = 4096), at most the port's active MTU
 * @param destQpn          the peer's QP number
 * @param rqPsn            the peer's starting PSN (our expected receive PSN)
 * @param maxDestRdAtomic  RDMA READ / atomic requests the peer may have outstanding at us (RC)
 * @param minRnrTimer      RNR NAK timer code (RC), e.g. 12 = 0.64 ms
 * @param path             where packets go: LID for InfiniBand, GID + GRH for RoCE
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record RtrAttributes(int pathMtu, int destQpn, int rqPsn, int maxDestRdAtomic, int minRnrTimer,
    AddressVector path)
{
    /**
     * rc_pingpong's choices: 1 outstanding read/atomic, RNR timer 12.
     *
     * @param pathMtu enum ibv_mtu (1 = 256 ... 5 = 4096)
     * @param remote the peer's QP number and PSN
     * @param path where packets go
     * @return the attributes
     */
    public static RtrAttributes of(final int pathMtu, final PeerInfo remote, final AddressVector path)
    {
        return new RtrAttributes(pathMtu, remote.qpn(), remote.psn(), 1, 12, path);
    }
}
