// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

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
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class EthSeg
{
    /** Byte offset of {@code rsvd0} in the Ethernet segment ({@code struct mlx5_wqe_eth_seg}). */
    public static final int RSVD0_OFFSET = 0x00;
    /** Byte offset of {@code cs_flags} in the Ethernet segment ({@code struct mlx5_wqe_eth_seg}). */
    public static final int CS_FLAGS_OFFSET = 0x04;
    /** Byte offset of {@code mss} in the Ethernet segment ({@code struct mlx5_wqe_eth_seg}). */
    public static final int MSS_OFFSET = 0x06;
    /** Byte offset of {@code rsvd2} in the Ethernet segment ({@code struct mlx5_wqe_eth_seg}). */
    public static final int RSVD2_OFFSET = 0x08;
    /** Byte offset of {@code inline_hdr_sz} in the Ethernet segment ({@code struct mlx5_wqe_eth_seg}). */
    public static final int INLINE_HDR_SZ_OFFSET = 0x0c;
    /** Byte offset of {@code inline_hdr_start} in the Ethernet segment ({@code struct mlx5_wqe_eth_seg}). */
    public static final int INLINE_HDR_START_OFFSET = 0x0e;
    /** Byte offset of {@code inline_hdr} in the Ethernet segment ({@code struct mlx5_wqe_eth_seg}). */
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
    /** Bytes of an 802.1Q tag. */
    public static final int VLAN_HLEN = 4;
    /** The 802.1Q ethertype (Linux if_ether.h ETH_P_8021Q). */
    public static final int ETH_P_8021Q = 0x8100;

    private EthSeg()
    {
    }

    /**
     * 16-byte units of an Ethernet segment carrying {@code inlineHdrSz} inline header bytes.
     *
     * @param inlineHdrSz number of frame bytes inlined in the segment
     * @return the number of 16-byte units
     */
    public static int ds(final int inlineHdrSz)
    {
        return (INLINE_HDR_START_OFFSET + inlineHdrSz + 15) >>> 4;
    }

    /**
     * Bytes 0x00..0x07 as one big-endian word: rsvd0 0, cs_flags, reserved 0, mss.
     *
     * @param csFlags OR of {@link #MLX5_ETH_WQE_L3_CSUM} / {@link #MLX5_ETH_WQE_L4_CSUM}
     * @param mss LSO segment size; 0 for a plain send
     * @return the word, to be stored big-endian
     */
    public static long word0(final int csFlags, final int mss)
    {
        return ((csFlags & 0xffL) << 24) | (mss & 0xffffL);
    }

    /**
     * Bytes 0x0C..0x0F: inline_hdr_sz and the first two frame bytes ({@code start}, first byte most significant).
     *
     * @param inlineHdrSz number of frame bytes inlined in the segment
     * @param start the first two frame bytes
     * @return the word, to be stored big-endian
     */
    public static int inlineHdrWord(final int inlineHdrSz, final int start)
    {
        return (inlineHdrSz << 16) | (start & 0xffff);
    }

    /**
     * Bytes 0x0C..0x0F with nothing inlined: insert.type {@link #INSERT_VLAN} and insert.vlan_tci.
     *
     * @param tci the 802.1Q tag control information (PCP, DEI, VLAN ID)
     * @return the word, to be stored big-endian
     */
    public static int insertVlanWord(final int tci)
    {
        return (INSERT_VLAN << 16) | (tci & 0xffff);
    }

    /**
     * The fixed first 16 bytes at {@code at} (16-aligned), two 8-byte big-endian stores: rsvd0, cs_flags, mss,
     * rsvd2 and the word at 0x0C ({@link #inlineHdrWord} or {@link #insertVlanWord}). The inline header bytes from
     * 0x10 on and their padding are the caller's.
     *
     * @param sq the whole send ring
     * @param at offset in {@code sq}, 16-byte aligned
     * @param csFlags OR of {@link #MLX5_ETH_WQE_L3_CSUM} / {@link #MLX5_ETH_WQE_L4_CSUM}
     * @param mss LSO segment size; 0 for a plain send
     * @param word12 the word at 0x0C
     */
    public static void set(final MemorySegment sq, final long at, final int csFlags, final int mss, final int word12)
    {
        Be.BE64.set(sq, at + RSVD0_OFFSET, word0(csFlags, mss));
        Be.BE64.set(sq, at + RSVD2_OFFSET, word12 & 0xffffffffL);
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     *
     * @param address ring address of the segment, 16-byte aligned
     * @param csFlags OR of {@link #MLX5_ETH_WQE_L3_CSUM} / {@link #MLX5_ETH_WQE_L4_CSUM}
     * @param mss LSO segment size; 0 for a plain send
     * @param word12 the word at 0x0C
     */
    public static void put(final long address, final int csFlags, final int mss, final int word12)
    {
        RingStores.putLongBE(address + RSVD0_OFFSET, word0(csFlags, mss));
        RingStores.putLongBE(address + RSVD2_OFFSET, word12 & 0xffffffffL);
    }

    /**
     * The 802.1Q tag (ethertype 0x8100, then {@code tci}) at {@code at}, inside an inline header copy: two 2-byte
     * stores, because the tag lands at segment offset 0x1a, which is only 2-aligned.
     *
     * @param sq the whole send ring
     * @param at offset in {@code sq} of the tag, 2-byte aligned
     * @param tci the 802.1Q tag control information (PCP, DEI, VLAN ID)
     */
    public static void setVlanTag(final MemorySegment sq, final long at, final int tci)
    {
        Be.BE16.set(sq, at, (short)ETH_P_8021Q);
        Be.BE16.set(sq, at + 2, (short)tci);
    }
}
