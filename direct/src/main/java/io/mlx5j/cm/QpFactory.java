// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.verbs.QueuePair;

/**
 * Creates the QP a connection will use, once the id knows its device ({@link CmId#deviceName()},
 * {@link CmId#port()}): after the route resolved on the active side, on the request's new id on the passive side.
 * The QP must be created on a {@link io.mlx5j.verbs.Context} of that device, in RESET state; the connection then
 * owns it and closes it with itself or when the attempt fails.
 */
@FunctionalInterface
public interface QpFactory
{
    /**
     * Creates the QP, on the calling thread of the connect or accept.
     *
     * @param id the id, bound to its device and port
     * @return a new QP in RESET: RC for the TCP port space, UD for a datagram one
     */
    QueuePair create(CmId id);
}
