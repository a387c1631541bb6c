// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * Datagram segment = address vector of a UD (or DC) send ({@code struct mlx5_wqe_datagram_seg} /
 * {@code struct mlx5_wqe_av}, rdma-core v44 mlx5dv.h; the encoding of {@code mlx5dv_set_dgram_seg}). 48 bytes.
 * <pre>
 *        31            24 23           16 15            8 7             0
 *       +-------------------------------------------------------------+
 *  0x00 |                 key [63:32]  (qkey for UD)                  |
 *       +-------------------------------------------------------------+
 *  0x04 |                 key [31:0]   (reserved 0 for UD)            |
 *       +-+-----------------------------------------------------------+
 *  0x08 |E|      |               dqp_dct (remote QPN)                 |
 *       +-+-------------+---------------+-----------------------------+
 *  0x0C | stat_rate_sl  |    fl_mlid    |            rlid             |
 *       +---------------+---------------+-----------------------------+
 *  0x10 |                         reserved0                           |
 *       +-------------------------------------------------------------+
 *  0x14 |                      rmac [0..3]                            |
 *       +-----------------------------+---------------+---------------+
 *  0x18 |         rmac [4..5]         |    tclass     |   hop_limit   |
 *       +-+---------------------------+---------------+---------------+
 *  0x1C | |G|  sgid_index / flow label (grh_gid_fl)                     |
 *       +-+-+---------------------------------------------------------+
 *  0x20 |                     rgid [0..15]                            |
 *       +-------------------------------------------------------------+
 * </pre>
 * E ({@link #MLX5_EXTENDED_UD_AV}) marks an extended AV. In grh_gid_fl, bits 27..20 carry the source GID index and
 * 19..0 the flow label; G ({@link #MLX5_AV_GRH}, bit 30) says "add a GRH" and is set only over InfiniBand, because
 * RoCE packets always carry one (rdma-core v44 providers/mlx5/verbs.c mlx5_create_ah). Over InfiniBand the AV uses
 * rlid, fl_mlid (source path bits) and stat_rate_sl = rate &lt;&lt; 4 | sl; over RoCE stat_rate_sl = rate &lt;&lt; 4 |
 * (sl &amp; 7) &lt;&lt; 1, rmac holds the destination MAC, and for RoCE v2 rlid carries the UDP source port.
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class DatagramSeg
{
    /** Byte offset of {@code key} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int KEY_OFFSET = 0;
    /** Byte offset of {@code dqp_dct} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int DQP_DCT_OFFSET = 8;
    /** Byte offset of {@code stat_rate_sl} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int STAT_RATE_SL_OFFSET = 12;
    /** Byte offset of {@code fl_mlid} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int FL_MLID_OFFSET = 13;
    /** Byte offset of {@code rlid} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int RLID_OFFSET = 14;
    /** Byte offset of {@code reserved0} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int RESERVED0_OFFSET = 16;
    /** Byte offset of {@code rmac} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int RMAC_OFFSET = 20;
    /** Byte offset of {@code tclass} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int TCLASS_OFFSET = 26;
    /** Byte offset of {@code hop_limit} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int HOP_LIMIT_OFFSET = 27;
    /** Byte offset of {@code grh_gid_fl} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int GRH_GID_FL_OFFSET = 28;
    /** Byte offset of {@code rgid} in the datagram segment ({@code struct mlx5_wqe_datagram_seg}). */
    public static final int RGID_OFFSET = 32;
    /** Size of the datagram segment ({@code struct mlx5_wqe_datagram_seg}) in bytes. */
    public static final int LENGTH = 48;

    /** Bit 31 of dqp_dct (mlx5dv.h). */
    public static final int MLX5_EXTENDED_UD_AV = 0x80000000;
    /** Bit 30 of grh_gid_fl: send with a GRH (InfiniBand global routing only; reserved and 0 for RoCE). */
    public static final int MLX5_AV_GRH = 1 << 30;

    private DatagramSeg()
    {
    }

    /**
     * Bytes 0x08..0x0F as one big-endian word: dqp_dct (with the E flag), stat_rate_sl, fl_mlid, rlid.
     *
     * @param dqpDct the destination QP number (or DCT number), 24 bits
     * @param extended whether the address vector is extended (sets {@link #MLX5_EXTENDED_UD_AV})
     * @param statRateSl the stat_rate_sl byte ({@link #statRateSlIb} / {@link #statRateSlRoce})
     * @param flMlid the fl_mlid byte (source path bits over InfiniBand)
     * @param rlid the remote LID (InfiniBand), or the UDP source port (RoCE v2)
     * @return the word, to be stored big-endian
     */
    public static long word8(final int dqpDct, final boolean extended, final int statRateSl, final int flMlid,
        final int rlid)
    {
        return ((long)((extended ? MLX5_EXTENDED_UD_AV : 0) | dqpDct) << 32) |
            (((statRateSl & 0xffL) << 24) | ((flMlid & 0xffL) << 16) | (rlid & 0xffffL));
    }

    /**
     * Bytes 0x10..0x17 as one big-endian word: reserved0 0, rmac bytes 0..3 ({@code rmac} in its low 48 bits).
     *
     * @param rmac destination MAC, the 6 bytes in the low 48 bits, first wire byte most significant
     * @return the word, to be stored big-endian
     */
    public static long word16(final long rmac)
    {
        return (rmac >>> 16) & 0xffffffffL;
    }

    /**
     * Bytes 0x18..0x1F as one big-endian word: rmac bytes 4..5, tclass, hop_limit, grh_gid_fl.
     *
     * @param rmac destination MAC, the 6 bytes in the low 48 bits, first wire byte most significant
     * @param tclass the GRH traffic class
     * @param hopLimit the GRH hop limit
     * @param grhGidFl the grh_gid_fl word ({@link #grhGidFlIb} / {@link #grhGidFlRoce})
     * @return the word, to be stored big-endian
     */
    public static long word24(final long rmac, final int tclass, final int hopLimit, final int grhGidFl)
    {
        return ((rmac & 0xffffL) << 48) | ((tclass & 0xffL) << 40) | ((hopLimit & 0xffL) << 32) |
            (grhGidFl & 0xffffffffL);
    }

    /**
     * The segment, field for field what mlx5dv_set_dgram_seg writes, as six 8-byte big-endian stores into its three
     * 16-byte units at {@code unit0}, {@code unit1} and {@code unit2} (the offsets of units 1 and 2 are passed
     * because they may continue at the ring start).
     *
     * @param key      64-bit key; for UD the qkey goes in the upper 32 bits ({@code (long) qkey << 32})
     * @param rmac     destination MAC, the 6 bytes in the low 48 bits, first wire byte most significant
     * @param grhGidFl see {@link #grhGidFlIb} / {@link #grhGidFlRoce}; 0 for IB without GRH
     * @param rgidHi   bytes 0..7 of the remote GID, first byte most significant
     * @param rgidLo   bytes 8..15 of the remote GID
     * @param sq the whole send ring
     * @param unit0 ring offset of the segment's first 16-byte unit
     * @param unit1 ring offset of the segment's second 16-byte unit (may be at the ring start)
     * @param unit2 ring offset of the segment's third 16-byte unit (may be at the ring start)
     * @param dqpDct the destination QP number (or DCT number), 24 bits
     * @param extended whether the address vector is extended (sets {@link #MLX5_EXTENDED_UD_AV})
     * @param statRateSl the stat_rate_sl byte ({@link #statRateSlIb} / {@link #statRateSlRoce})
     * @param flMlid the fl_mlid byte (source path bits over InfiniBand)
     * @param rlid the remote LID (InfiniBand), or the UDP source port (RoCE v2)
     * @param tclass the GRH traffic class
     * @param hopLimit the GRH hop limit
     */
    public static void set(final MemorySegment sq, final long unit0, final long unit1, final long unit2,
        final long key, final int dqpDct, final boolean extended, final int statRateSl, final int flMlid,
        final int rlid, final long rmac, final int tclass, final int hopLimit, final int grhGidFl, final long rgidHi,
        final long rgidLo)
    {
        Be.BE64.set(sq, unit0 + KEY_OFFSET, key);
        Be.BE64.set(sq, unit0 + DQP_DCT_OFFSET, word8(dqpDct, extended, statRateSl, flMlid, rlid));
        Be.BE64.set(sq, unit1 + RESERVED0_OFFSET - 16, word16(rmac));
        Be.BE64.set(sq, unit1 + RMAC_OFFSET + 4 - 16, word24(rmac, tclass, hopLimit, grhGidFl));
        Be.BE64.set(sq, unit2 + RGID_OFFSET - 32, rgidHi);
        Be.BE64.set(sq, unit2 + RGID_OFFSET + 8 - 32, rgidLo);
    }

    /**
     * {@link #set} at ring addresses ({@link RingStores}: only addresses inside a live ring, 8-aligned).
     *
     * @param unit0 ring offset of the segment's first 16-byte unit
     * @param unit1 ring offset of the segment's second 16-byte unit (may be at the ring start)
     * @param unit2 ring offset of the segment's third 16-byte unit (may be at the ring start)
     * @param key 64-bit key; for UD the qkey in the upper 32 bits
     * @param dqpDct the destination QP number (or DCT number), 24 bits
     * @param extended whether the address vector is extended (sets {@link #MLX5_EXTENDED_UD_AV})
     * @param statRateSl the stat_rate_sl byte ({@link #statRateSlIb} / {@link #statRateSlRoce})
     * @param flMlid the fl_mlid byte (source path bits over InfiniBand)
     * @param rlid the remote LID (InfiniBand), or the UDP source port (RoCE v2)
     * @param rmac destination MAC, the 6 bytes in the low 48 bits, first wire byte most significant
     * @param tclass the GRH traffic class
     * @param hopLimit the GRH hop limit
     * @param grhGidFl the grh_gid_fl word ({@link #grhGidFlIb} / {@link #grhGidFlRoce})
     * @param rgidHi bytes 0..7 of the remote GID, first byte most significant
     * @param rgidLo bytes 8..15 of the remote GID
     */
    public static void put(final long unit0, final long unit1, final long unit2, final long key, final int dqpDct,
        final boolean extended, final int statRateSl, final int flMlid, final int rlid, final long rmac,
        final int tclass, final int hopLimit, final int grhGidFl, final long rgidHi, final long rgidLo)
    {
        RingStores.putLongBE(unit0 + KEY_OFFSET, key);
        RingStores.putLongBE(unit0 + DQP_DCT_OFFSET, word8(dqpDct, extended, statRateSl, flMlid, rlid));
        RingStores.putLongBE(unit1 + RESERVED0_OFFSET - 16, word16(rmac));
        RingStores.putLongBE(unit1 + RMAC_OFFSET + 4 - 16, word24(rmac, tclass, hopLimit, grhGidFl));
        RingStores.putLongBE(unit2 + RGID_OFFSET - 32, rgidHi);
        RingStores.putLongBE(unit2 + RGID_OFFSET + 8 - 32, rgidLo);
    }

    /**
     * grh_gid_fl word for InfiniBand with GRH: G flag, source GID index (bits 27..20), flow label (19..0).
     *
     * @param sgidIndex the source GID index, 8 bits
     * @param flowLabel the GRH flow label, 20 bits
     * @return the grh_gid_fl word
     */
    public static int grhGidFlIb(final int sgidIndex, final int flowLabel)
    {
        return MLX5_AV_GRH | ((sgidIndex & 0xff) << 20) | (flowLabel & 0xfffff);
    }

    /**
     * grh_gid_fl word for RoCE: no G flag (the GRH is implied), source GID index, flow label.
     *
     * @param sgidIndex the source GID index, 8 bits
     * @param flowLabel the GRH flow label, 20 bits
     * @return the grh_gid_fl word
     */
    public static int grhGidFlRoce(final int sgidIndex, final int flowLabel)
    {
        return ((sgidIndex & 0xff) << 20) | (flowLabel & 0xfffff);
    }

    /**
     * stat_rate_sl over InfiniBand: static rate in bits 7..4, SL in bits 3..0.
     *
     * @param staticRate the static rate encoding, 4 bits
     * @param sl the service level, 4 bits
     * @return the stat_rate_sl byte
     */
    public static int statRateSlIb(final int staticRate, final int sl)
    {
        return ((staticRate & 0xf) << 4) | (sl & 0xf);
    }

    /**
     * stat_rate_sl over RoCE: static rate in bits 7..4, Ethernet priority (SL {@code &} 7) in bits 3..1.
     *
     * @param staticRate the static rate encoding, 4 bits
     * @param sl the service level, 4 bits
     * @return the stat_rate_sl byte
     */
    public static int statRateSlRoce(final int staticRate, final int sl)
    {
        return ((staticRate & 0xf) << 4) | ((sl & 0x7) << 1);
    }
}
