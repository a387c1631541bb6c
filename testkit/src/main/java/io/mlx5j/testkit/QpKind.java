// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

/**
 * The transport of the QP a send WQE was built for: it decides which segments follow the ctrl segment
 * (rdma-core providers/mlx5/qp.c, _mlx5_post_send): a remote address for RDMA and atomic opcodes on RC and UC, a
 * datagram segment (struct mlx5_wqe_datagram_seg) on UD, an Ethernet segment (struct mlx5_wqe_eth_seg) on raw packet
 * QPs. The bytes alone cannot tell these apart, so a decoder is told.
 *
 * <p>Thread model: an immutable value; any thread.
 */
public enum QpKind
{
    /** Reliable connected: raddr for RDMA_WRITE/_IMM, RDMA_READ and atomics, then an atomic segment for atomics. */
    RC,
    /** Unreliable connected: raddr for RDMA_WRITE/_IMM. */
    UC,
    /** Unreliable datagram: a 48-byte datagram segment (the address vector) after ctrl. */
    UD,
    /** Raw packet (Ethernet): an Ethernet segment with inline headers after ctrl. */
    RAW_PACKET;

    /**
     * The kind named {@code rc}, {@code uc}, {@code ud}, {@code raw} (any case).
     *
     * @param name the name
     * @return the kind
     */
    public static QpKind parse(final String name)
    {
        return switch (name.toLowerCase(java.util.Locale.ROOT))
        {
            case "rc" -> RC;
            case "uc" -> UC;
            case "ud" -> UD;
            case "raw", "raw_packet", "eth" -> RAW_PACKET;
            default -> throw new IllegalArgumentException("unknown QP kind '" + name + "' (rc, uc, ud or raw)");
        };
    }
}
