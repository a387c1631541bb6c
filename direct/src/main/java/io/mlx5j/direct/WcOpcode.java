// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

/**
 * Work completion opcodes with libibverbs' {@code enum ibv_wc_opcode} numbering (verbs.h), as {@link
 * Completion#opcode()} reports them.
 *
 * <p>Thread model: constants only; any thread.
 */
public final class WcOpcode
{
    /** {@code IBV_WC_SEND} (verbs.h). */
    public static final int SEND = 0;
    /** {@code IBV_WC_RDMA_WRITE} (verbs.h). */
    public static final int RDMA_WRITE = 1;
    /** {@code IBV_WC_RDMA_READ} (verbs.h). */
    public static final int RDMA_READ = 2;
    /** {@code IBV_WC_COMP_SWAP} (verbs.h). */
    public static final int COMP_SWAP = 3;
    /** {@code IBV_WC_FETCH_ADD} (verbs.h). */
    public static final int FETCH_ADD = 4;
    /** {@code IBV_WC_RECV} (verbs.h). */
    public static final int RECV = 128;
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM} (verbs.h). */
    public static final int RECV_RDMA_WITH_IMM = 129;

    /** wc_flags bit: a GRH is present in the receive buffer (IBV_WC_GRH). */
    public static final int WC_GRH = 1 << 0;
    /** wc_flags bit: {@link Completion#imm()} is valid (IBV_WC_WITH_IMM). */
    public static final int WC_WITH_IMM = 1 << 1;
    /**
     * wc_flags bit: the NIC verified the IPv4 header checksum and the TCP/UDP checksum of a received frame
     * (IBV_WC_IP_CSUM_OK; raw packet QPs).
     */
    public static final int WC_IP_CSUM_OK = 1 << 2;
    /** wc_flags bit: {@link Completion#invalidatedRkey()} is valid (IBV_WC_WITH_INV). */
    public static final int WC_WITH_INV = 1 << 3;

    private WcOpcode()
    {
    }
}
