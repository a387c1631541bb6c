// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

/**
 * The parts of a UAR page (user access region, write-combining MMIO) that mlx5j writes.
 * <pre>
 *  UAR page (4 KiB adapter page):
 *       +------------------------------------------------------------+
 *  0x020 | CQ arm doorbell: 64-bit big-endian                         |  MLX5_CQ_DOORBELL
 *       |   bits 63..32 = the arm word (as in dbrec[MLX5_CQ_ARM_DB]) |
 *       |   bits 31..0  = cqn                                        |
 *       +------------------------------------------------------------+
 *  0x800 | BlueFlame register 0: two halves of bf.size bytes each     |  MLX5_BF_OFFSET + k * bf_reg_size
 *       |   half 0 at +0, half 1 at +bf.size; a post writes the      |
 *       |   current half and then toggles (offset ^= bf.size)        |
 *       +------------------------------------------------------------+
 * </pre>
 * Writing the first 8 bytes of a ctrl segment to the current half is the plain "8-byte doorbell"; writing the whole
 * WQE there in 64-byte blocks is a "BlueFlame" post, which spares the NIC the WQE fetch. A register reported with
 * {@code bf.size == 0} (uuarn 0, or a non-cached UAR) has no BlueFlame buffer: only 8-byte doorbells at offset 0.
 * Sources: mlx5dv.h ({@code MLX5_CQ_DOORBELL}, {@code MLX5_CQ_DB_REQ_NOT*}); rdma-core v44 providers/mlx5/mlx5.h
 * ({@code MLX5_BF_OFFSET = 0x800}), mlx5.c (bfs[].reg, buf_size = bf_reg_size / 2), cq.c mlx5_arm_cq.
 *
 * <p>Constants only: any thread.
 */
public final class UarDescriptor
{
    /** Offset of the CQ arm doorbell in the CQ's UAR page ({@code mlx5dv_cq.cq_uar}). */
    public static final int MLX5_CQ_DOORBELL = 0x20;

    /** Offset of the first BlueFlame register in a UAR page (providers/mlx5/mlx5.h, not exported by mlx5dv.h). */
    public static final int MLX5_BF_OFFSET = 0x800;

    /** Arm command: next completion of any kind raises an event. */
    public static final int MLX5_CQ_DB_REQ_NOT = 0;

    /** Arm command: only a solicited (or error) completion raises an event. */
    public static final int MLX5_CQ_DB_REQ_NOT_SOL = 1 << 24;

    /** Arm sequence number: {@code (arm_sn & 3) << 28}. */
    public static final int ARM_SN_SHIFT = 28;

    /** BlueFlame copies move whole 64-byte blocks (one WQEBB, one WC line). */
    public static final int BLUEFLAME_BLOCK = 64;

    /** The 8-byte doorbell: the first 8 bytes of the ctrl segment ({@code opmod_idx_opcode}, {@code qpn_ds}). */
    public static final int DOORBELL_LENGTH = 8;

    private UarDescriptor()
    {
    }

    /**
     * The arm word {@code sn << 28 | cmd | ci} as libmlx5 builds it in mlx5_arm_cq.
     *
     * @param armSn    arm sequence number (only its low 2 bits are used)
     * @param cmd      {@link #MLX5_CQ_DB_REQ_NOT} or {@link #MLX5_CQ_DB_REQ_NOT_SOL}
     * @param ci       consumer index (only its low 24 bits are used)
     * @return the host-order value stored big-endian in dbrec[MLX5_CQ_ARM_DB]
     */
    public static int armWord(final int armSn, final int cmd, final int ci)
    {
        return ((armSn & 3) << ARM_SN_SHIFT) | cmd | (ci & DbrecDescriptor.CQ_CI_MASK);
    }

    /**
     * The 64-bit CQ arm doorbell: the arm word in the high half, the cqn in the low half.
     *
     * @param armWord  from {@link #armWord(int, int, int)}
     * @param cqn      CQ number
     * @return the host-order value stored big-endian at {@link #MLX5_CQ_DOORBELL}
     */
    public static long armDoorbell(final int armWord, final int cqn)
    {
        return ((long) armWord << 32) | (cqn & 0xFFFF_FFFFL);
    }
}
