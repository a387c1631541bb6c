package io.mlx5j.wqe;

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
 */
public final class DatagramSeg
{
    public static final int KEY_OFFSET = 0;
    public static final int DQP_DCT_OFFSET = 8;
    public static final int STAT_RATE_SL_OFFSET = 12;
    public static final int FL_MLID_OFFSET = 13;
    public static final int RLID_OFFSET = 14;
    public static final int RESERVED0_OFFSET = 16;
    public static final int RMAC_OFFSET = 20;
    public static final int TCLASS_OFFSET = 26;
    public static final int HOP_LIMIT_OFFSET = 27;
    public static final int GRH_GID_FL_OFFSET = 28;
    public static final int RGID_OFFSET = 32;
    public static final int LENGTH = 48;

    /** Bit 31 of dqp_dct (mlx5dv.h). */
    public static final int MLX5_EXTENDED_UD_AV = 0x80000000;
    /** Bit 30 of grh_gid_fl: send with a GRH (InfiniBand global routing only; reserved and 0 for RoCE). */
    public static final int MLX5_AV_GRH = 1 << 30;

    private DatagramSeg()
    {
    }

    /** grh_gid_fl word for InfiniBand with GRH: G flag, source GID index (bits 27..20), flow label (19..0). */
    public static int grhGidFlIb(final int sgidIndex, final int flowLabel)
    {
        return MLX5_AV_GRH | ((sgidIndex & 0xff) << 20) | (flowLabel & 0xfffff);
    }

    /** grh_gid_fl word for RoCE: no G flag (the GRH is implied), source GID index, flow label. */
    public static int grhGidFlRoce(final int sgidIndex, final int flowLabel)
    {
        return ((sgidIndex & 0xff) << 20) | (flowLabel & 0xfffff);
    }

    /** stat_rate_sl over InfiniBand: static rate in bits 7..4, SL in bits 3..0. */
    public static int statRateSlIb(final int staticRate, final int sl)
    {
        return ((staticRate & 0xf) << 4) | (sl & 0xf);
    }

    /** stat_rate_sl over RoCE: static rate in bits 7..4, Ethernet priority (SL {@code &} 7) in bits 3..1. */
    public static int statRateSlRoce(final int staticRate, final int sl)
    {
        return ((staticRate & 0xf) << 4) | ((sl & 0x7) << 1);
    }
}
