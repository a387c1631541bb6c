// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

/**
 * Doorbell record: 8 bytes of host memory the NIC reads by DMA, two big-endian words
 * ({@code __be32 *dbrec} of {@code struct mlx5dv_qp} / {@code mlx5dv_srq} / {@code mlx5dv_cq}).
 * <pre>
 *  QP / SRQ record (MLX5_RCV_DBR = 0, MLX5_SND_DBR = 1 in mlx5dv.h):
 *        31                             16 15                            0
 *       +--------------------------------+--------------------------------+
 *  0x00 |            reserved            |   receive counter (rq.head)    |
 *       +--------------------------------+--------------------------------+
 *  0x04 |            reserved            |   send counter (sq.cur_post)   |
 *       +--------------------------------+--------------------------------+
 *
 *  CQ record (MLX5_CQ_SET_CI = 0, MLX5_CQ_ARM_DB = 1 in providers/mlx5/mlx5.h):
 *        31 30 29 28 27  25 24 23                                        0
 *       +-----+-----+------+--+-------------------------------------------+
 *  0x00 |        reserved     |        consumer index (cons_index)        |
 *       +-----+-----+------+--+-------------------------------------------+
 *  0x04 | rsv | sn  | rsv  |c |        consumer index at arm time         |
 *       +-----+-----+------+--+-------------------------------------------+
 * </pre>
 * Counters are free-running; the QP/SRQ words carry their low 16 bits (libmlx5 stores {@code cur_post & 0xffff},
 * {@code rq.head & 0xffff} and the {@code uint16_t} SRQ counter), the CQ words their low 24 bits. {@code sn} is
 * {@code arm_sn & 3}; {@code c} is 1 for "solicited only" ({@code MLX5_CQ_DB_REQ_NOT_SOL = 1 << 24}).
 * Source: rdma-core v44 providers/mlx5/qp.c post_send_db, mlx5_post_recv; srq.c; cq.c update_cons_index, mlx5_arm_cq.
 *
 * <p>Constants only: any thread.
 */
public final class DbrecDescriptor
{
    /** {@code dbrec[MLX5_RCV_DBR]}: receive queue or SRQ counter. */
    public static final int MLX5_RCV_DBR_OFFSET = 0;

    /** {@code dbrec[MLX5_SND_DBR]}: send queue producer counter. */
    public static final int MLX5_SND_DBR_OFFSET = 4;

    /** {@code dbrec[MLX5_CQ_SET_CI]}: CQ consumer index. */
    public static final int MLX5_CQ_SET_CI_OFFSET = 0;

    /** {@code dbrec[MLX5_CQ_ARM_DB]}: the arm word, also sent as the high half of the CQ arm doorbell. */
    public static final int MLX5_CQ_ARM_DB_OFFSET = 4;

    /** Bytes a doorbell record occupies. */
    public static final int LENGTH = 8;

    /** Mask of the 16-bit work-queue counters. */
    public static final int WQ_COUNTER_MASK = 0xFFFF;

    /** Mask of the 24-bit CQ consumer index. */
    public static final int CQ_CI_MASK = 0xFF_FFFF;

    private DbrecDescriptor()
    {
    }
}
