// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_qp} (mlx5dv.h, rdma-core 44): what mlx5dv_init_obj reports for a QP. {@code dbrec} points to
 * two __be32 counters, [MLX5_RCV_DBR=0] and [MLX5_SND_DBR=1]; {@code sq.buf} holds {@code sq.wqe_cnt * sq.stride}
 * bytes (stride 64 = one WQEBB); {@code bf.reg} is the BlueFlame register of {@code 2 * bf.size} bytes (two halves).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvQp
{
    /** Memory layout of {@code struct mlx5dv_qp} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("dbrec"),
        structLayout(
            C_POINTER.withName("buf"),
            U32.withName("wqe_cnt"),
            U32.withName("stride")).withName("sq"),
        structLayout(
            C_POINTER.withName("buf"),
            U32.withName("wqe_cnt"),
            U32.withName("stride")).withName("rq"),
        structLayout(
            C_POINTER.withName("reg"),
            U32.withName("size"),
            pad(4)).withName("bf"),
        U64.withName("comp_mask"),
        C_LONG.withName("uar_mmap_offset"),
        U32.withName("tirn"),
        U32.withName("tisn"),
        U32.withName("rqn"),
        U32.withName("sqn"),
        U64.withName("tir_icm_addr")).withName("mlx5dv_qp");

    /** Byte offset of {@code dbrec} in {@code struct mlx5dv_qp}. */
    public static final long DBREC_OFFSET = offset(LAYOUT, "dbrec");
    /** Byte offset of {@code sq.buf} in {@code struct mlx5dv_qp}. */
    public static final long SQ_BUF_OFFSET = offset(LAYOUT, "sq", "buf");
    /** Byte offset of {@code sq.wqe_cnt} in {@code struct mlx5dv_qp}. */
    public static final long SQ_WQE_CNT_OFFSET = offset(LAYOUT, "sq", "wqe_cnt");
    /** Byte offset of {@code sq.stride} in {@code struct mlx5dv_qp}. */
    public static final long SQ_STRIDE_OFFSET = offset(LAYOUT, "sq", "stride");
    /** Byte offset of {@code rq.buf} in {@code struct mlx5dv_qp}. */
    public static final long RQ_BUF_OFFSET = offset(LAYOUT, "rq", "buf");
    /** Byte offset of {@code rq.wqe_cnt} in {@code struct mlx5dv_qp}. */
    public static final long RQ_WQE_CNT_OFFSET = offset(LAYOUT, "rq", "wqe_cnt");
    /** Byte offset of {@code rq.stride} in {@code struct mlx5dv_qp}. */
    public static final long RQ_STRIDE_OFFSET = offset(LAYOUT, "rq", "stride");
    /** Byte offset of {@code bf.reg} in {@code struct mlx5dv_qp}. */
    public static final long BF_REG_OFFSET = offset(LAYOUT, "bf", "reg");
    /** Byte offset of {@code bf.size} in {@code struct mlx5dv_qp}. */
    public static final long BF_SIZE_OFFSET = offset(LAYOUT, "bf", "size");
    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_qp}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code uar_mmap_offset} in {@code struct mlx5dv_qp}. */
    public static final long UAR_MMAP_OFFSET_OFFSET = offset(LAYOUT, "uar_mmap_offset");
    /** Byte offset of {@code tirn} in {@code struct mlx5dv_qp}. */
    public static final long TIRN_OFFSET = offset(LAYOUT, "tirn");
    /** Byte offset of {@code tisn} in {@code struct mlx5dv_qp}. */
    public static final long TISN_OFFSET = offset(LAYOUT, "tisn");
    /** Byte offset of {@code rqn} in {@code struct mlx5dv_qp}. */
    public static final long RQN_OFFSET = offset(LAYOUT, "rqn");
    /** Byte offset of {@code sqn} in {@code struct mlx5dv_qp}. */
    public static final long SQN_OFFSET = offset(LAYOUT, "sqn");
    /** Byte offset of {@code tir_icm_addr} in {@code struct mlx5dv_qp}. */
    public static final long TIR_ICM_ADDR_OFFSET = offset(LAYOUT, "tir_icm_addr");

    /** Index of the receive counter in dbrec (mlx5dv.h enum: MLX5_RCV_DBR). */
    public static final int MLX5_RCV_DBR = 0;
    /** Index of the send counter in dbrec (mlx5dv.h enum: MLX5_SND_DBR). */
    public static final int MLX5_SND_DBR = 1;
    /**
     * {@code comp_mask} bit asking for, and on return confirming, {@code uar_mmap_offset} (mlx5dv.h enum
     * mlx5dv_qp_comp_mask: MLX5DV_QP_MASK_UAR_MMAP_OFFSET).
     */
    public static final long MLX5DV_QP_MASK_UAR_MMAP_OFFSET = 1L;

    private Mlx5dvQp()
    {
    }
}
