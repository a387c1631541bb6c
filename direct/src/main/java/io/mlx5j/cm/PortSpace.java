// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.RdmaCmId;

/**
 * {@code enum rdma_port_space}: which kind of QP an id connects. TCP is the reliable-connected service (RC QPs),
 * UDP the unreliable-datagram one (UD QPs, multicast), IB the native InfiniBand service ID space.
 */
public enum PortSpace
{
    TCP(RdmaCmId.RDMA_PS_TCP, false),
    UDP(RdmaCmId.RDMA_PS_UDP, true),
    IPOIB(RdmaCmId.RDMA_PS_IPOIB, true),
    IB(RdmaCmId.RDMA_PS_IB, false);

    private final int value;
    private final boolean datagram;

    PortSpace(final int value, final boolean datagram)
    {
        this.value = value;
        this.datagram = datagram;
    }

    /** The C value. */
    public int value()
    {
        return value;
    }

    /** UD QPs (librdmacm's ucma_is_ud_qp): events carry {@code rdma_ud_param} instead of {@code rdma_conn_param}. */
    public boolean isDatagram()
    {
        return datagram;
    }
}
