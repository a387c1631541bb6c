// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.RdmaCmId;

/**
 * {@code enum rdma_port_space}: which kind of QP an id connects. TCP is the reliable-connected service (RC QPs),
 * UDP the unreliable-datagram one (UD QPs, multicast), IB the native InfiniBand service ID space.
 */
public enum PortSpace
{
    /** RDMA_PS_TCP: reliable-connected, RC QPs; what {@link CmConnection} and {@link CmListener} use by default. */
    TCP(RdmaCmId.RDMA_PS_TCP, false),
    /** RDMA_PS_UDP: unreliable datagram, UD QPs; SIDR to resolve a peer's QPN and Q_Key, multicast. */
    UDP(RdmaCmId.RDMA_PS_UDP, true),
    /** RDMA_PS_IPOIB: UD QPs with the Q_Key of the IPoIB broadcast group (kernel cma.c cma_set_qkey). */
    IPOIB(RdmaCmId.RDMA_PS_IPOIB, true),
    /** RDMA_PS_IB: the native InfiniBand service ID space; mlx5j treats its ids as connected (RC). */
    IB(RdmaCmId.RDMA_PS_IB, false);

    private final int value;
    private final boolean datagram;

    PortSpace(final int value, final boolean datagram)
    {
        this.value = value;
        this.datagram = datagram;
    }

    /**
     * The C value, for calls mlx5j does not wrap.
     *
     * @return the {@code enum rdma_port_space} value (e.g. 0x0106 for RDMA_PS_TCP)
     */
    public int value()
    {
        return value;
    }

    /**
     * Whether ids in this space use UD QPs (librdmacm's ucma_is_ud_qp).
     *
     * @return true for UDP and IPOIB: their events carry {@code rdma_ud_param} instead of {@code rdma_conn_param}
     */
    public boolean isDatagram()
    {
        return datagram;
    }
}
