// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/**
 * The header fields an RSS QP hashes ({@code enum ibv_rx_hash_fields}, verbs.h, rdma-core 44) and the hash types a
 * receive CQE reports with the hash ({@link io.mlx5j.direct.Completion#rssHashType()}: the CQE_RSS_* bits of Linux
 * include/linux/mlx5/device.h, as the emulator writes them).
 *
 * <p>Thread model: constants only; any thread.
 */
public final class RxHash
{
    /** {@code IBV_RX_HASH_SRC_IPV4} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_SRC_IPV4 = 1 << 0;
    /** {@code IBV_RX_HASH_DST_IPV4} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_DST_IPV4 = 1 << 1;
    /** {@code IBV_RX_HASH_SRC_IPV6} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_SRC_IPV6 = 1 << 2;
    /** {@code IBV_RX_HASH_DST_IPV6} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_DST_IPV6 = 1 << 3;
    /** {@code IBV_RX_HASH_SRC_PORT_TCP} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_SRC_PORT_TCP = 1 << 4;
    /** {@code IBV_RX_HASH_DST_PORT_TCP} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_DST_PORT_TCP = 1 << 5;
    /** {@code IBV_RX_HASH_SRC_PORT_UDP} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_SRC_PORT_UDP = 1 << 6;
    /** {@code IBV_RX_HASH_DST_PORT_UDP} from rdma-core's {@code infiniband/verbs.h}. */
    public static final long IBV_RX_HASH_DST_PORT_UDP = 1 << 7;

    /** IPv4 addresses and UDP ports: the usual choice for a UDP feed. */
    public static final long IPV4_UDP = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_PORT_UDP |
        IBV_RX_HASH_DST_PORT_UDP;

    /** {@return the Toeplitz key of the Microsoft RSS verification suite (40 bytes), a common default} */
    public static byte[] defaultKey()
    {
        return new byte[] {
            0x6d, 0x5a, 0x56, (byte) 0xda, 0x25, 0x5b, 0x0e, (byte) 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, (byte) 0xa3,
            (byte) 0x8f, (byte) 0xb0, (byte) 0xd0, (byte) 0xca, 0x2b, (byte) 0xcb, (byte) 0xae, 0x7b, 0x30,
            (byte) 0xb4, 0x77, (byte) 0xcb, 0x2d, (byte) 0xa3, (byte) 0x80, 0x30, (byte) 0xf2, 0x0c, 0x6a, 0x42,
            (byte) 0xb7, 0x3b, (byte) 0xbe, (byte) 0xac, 0x01, (byte) 0xfa };
    }

    private RxHash()
    {
    }
}
