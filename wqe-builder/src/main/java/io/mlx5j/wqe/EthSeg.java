package io.mlx5j.wqe;

/**
 * Ethernet segment of a raw-packet send WQE ({@code struct mlx5_wqe_eth_seg} in rdma-core v44 mlx5dv.h; 32 bytes
 * in the header, but only its first 16 bytes are fixed): it follows the ctrl segment and carries the checksum
 * offload flags, the LSO segment size and the first bytes of the frame ("inline headers").
 * <pre>
 *        31            24 23           16 15                            0
 *       +-------------------------------------------------------------+
 *  0x00 |                     reserved (rsvd0)                        |
 *       +---------------+---------------+-----------------------------+
 *  0x04 |   cs_flags    |   reserved    |             mss             |
 *       +---------------+---------------+-----------------------------+
 *  0x08 |                     reserved (rsvd2)                        |
 *       +-------------------------------+-----------------------------+
 *  0x0C |         inline_hdr_sz         |   inline_hdr_start[0..1]    |   or: insert.type | insert.vlan_tci
 *       +-------------------------------+-----------------------------+
 *  0x10 |  inline_hdr (inline_hdr_sz - 2 more bytes, continuing into  |
 *       |  the following 16-byte units and, at the ring end, at the   |
 *       |  ring start; the last unit padded)                          |
 *       +-------------------------------------------------------------+
 * </pre>
 * The segment with an inline header of n bytes occupies {@link #ds(int) ceil((14 + n) / 16)} units: 1 for n = 0, 2
 * for the L2 minimum of 18 (libmlx5's {@code (offsetof(inline_hdr) + n) >> 4} for its two cases, and
 * set_tso_eth_seg's {@code align(n - 2, 16) / 16 + 1} for longer headers; rdma-core v44 providers/mlx5/qp.c).
 * <p>
 * Hardware VLAN insertion uses the word at 0x0C instead of the inline header (Linux
 * include/linux/mlx5/qp.h {@code insert.type = MLX5_ETH_WQE_INSERT_VLAN}, {@code insert.vlan_tci}), so it exists
 * only when nothing is inlined; with inline headers the 802.1Q tag is written into the inline copy instead, as the
 * Linux mlx5e driver does (en_tx.c). libmlx5's ibv_post_send offers neither.
 */
public final class EthSeg
{
    public static final int RSVD0_OFFSET = 0x00;
    public static final int CS_FLAGS_OFFSET = 0x04;
    public static final int MSS_OFFSET = 0x06;
    public static final int RSVD2_OFFSET = 0x08;
    public static final int INLINE_HDR_SZ_OFFSET = 0x0c;
    public static final int INLINE_HDR_START_OFFSET = 0x0e;
    public static final int INLINE_HDR_OFFSET = 0x10;
    /** sizeof(struct mlx5_wqe_eth_seg): what libmlx5 zeroes before it fills the segment. */
    public static final int STRUCT_SIZE = 32;

    /** cs_flags: compute the IPv4 header checksum (mlx5dv.h MLX5_ETH_WQE_L3_CSUM). */
    public static final int MLX5_ETH_WQE_L3_CSUM = 1 << 6;
    /** cs_flags: compute the TCP/UDP checksum (mlx5dv.h MLX5_ETH_WQE_L4_CSUM). */
    public static final int MLX5_ETH_WQE_L4_CSUM = 1 << 7;
    /**
     * insert.type: insert insert.vlan_tci as an 802.1Q tag (Linux include/linux/mlx5/qp.h names it
     * MLX5_ETH_WQE_INSERT_VLAN; no installed header has it).
     */
    public static final int INSERT_VLAN = 1 << 15;

    /** Destination + source MAC + ethertype (rdma-core v44 providers/mlx5/wqe.h MLX5_ETH_L2_MIN_HEADER_SIZE). */
    public static final int MLX5_ETH_L2_MIN_HEADER_SIZE = 14;
    /**
     * The L2 header with one VLAN tag: what libmlx5 inlines in L2 minimum-inline mode
     * (MLX5_ETH_L2_INLINE_HEADER_SIZE).
     */
    public static final int MLX5_ETH_L2_INLINE_HEADER_SIZE = 18;
    /** Where an 802.1Q tag goes in a frame: after the two MACs. */
    public static final int VLAN_TAG_OFFSET = 12;
    public static final int VLAN_HLEN = 4;
    public static final int ETH_P_8021Q = 0x8100;

    private EthSeg()
    {
    }

    /** 16-byte units of an Ethernet segment carrying {@code inlineHdrSz} inline header bytes. */
    public static int ds(final int inlineHdrSz)
    {
        return (INLINE_HDR_START_OFFSET + inlineHdrSz + 15) >>> 4;
    }
}
