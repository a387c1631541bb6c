// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

/**
 * Work completion opcodes with libibverbs' {@code enum ibv_wc_opcode} numbering (verbs.h), as {@link
 * Completion#opcode()} reports them.
 */
public final class WcOpcode
{
    public static final int SEND = 0;
    public static final int RDMA_WRITE = 1;
    public static final int RDMA_READ = 2;
    public static final int COMP_SWAP = 3;
    public static final int FETCH_ADD = 4;
    public static final int RECV = 128;
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
