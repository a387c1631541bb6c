// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_context} (mlx5dv.h, rdma-core 44): output of mlx5dv_query_device. comp_mask is in/out: the
 * caller sets the MLX5DV_CONTEXT_MASK_* bits it wants filled, libmlx5 clears those it could not fill. flags
 * (MLX5DV_CONTEXT_FLAGS_*) are libmlx5's view of what GET_CONTEXT answered (CQE version 1, real-time timestamps).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5dvContext
{
    /** enum mlx5dv_context_comp_mask: cqe_comp_caps, striding_rq_caps, max_clock_info_update_nsec. */
    public static final long MLX5DV_CONTEXT_MASK_CQE_COMPRESION = 1L << 0;
    /** {@code MLX5DV_CONTEXT_MASK_STRIDING_RQ} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_CONTEXT_MASK_STRIDING_RQ = 1L << 2;
    /** {@code MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE} ({@code infiniband/mlx5dv.h}). */
    public static final long MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE = 1L << 5;
    /** enum mlx5dv_context_flags: the context uses CQE version 1 (user index in the CQE). */
    public static final long MLX5DV_CONTEXT_FLAGS_CQE_V1 = 1L << 0;
    /** enum mlx5dv_context_flags: CQs may carry real-time (CLOCK_REALTIME-based) timestamps. */
    public static final long MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS = 1L << 7;

    /** Memory layout of {@code struct mlx5dv_context} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U8.withName("version"),
        pad(7),
        U64.withName("flags"),
        U64.withName("comp_mask"),
        structLayout(
            U32.withName("max_num"),
            U32.withName("supported_format")).withName("cqe_comp_caps"),
        structLayout(
            U32.withName("sw_parsing_offloads"),
            U32.withName("supported_qpts")).withName("sw_parsing_caps"),
        structLayout(
            U32.withName("min_single_stride_log_num_of_bytes"),
            U32.withName("max_single_stride_log_num_of_bytes"),
            U32.withName("min_single_wqe_log_num_of_strides"),
            U32.withName("max_single_wqe_log_num_of_strides"),
            U32.withName("supported_qpts")).withName("striding_rq_caps"),
        U32.withName("tunnel_offloads_caps"),
        U32.withName("max_dynamic_bfregs"),
        pad(4),
        U64.withName("max_clock_info_update_nsec"),
        U32.withName("flow_action_flags"),
        U32.withName("dc_odp_caps"),
        C_POINTER.withName("hca_core_clock"),
        U8.withName("num_lag_ports"),
        pad(7),
        structLayout(
            U64.withName("block_size"),
            U32.withName("block_prot"),
            U16.withName("t10dif_bg"),
            U16.withName("crc_type")).withName("sig_caps"),
        structLayout(
            U8.withName("max_log_num_concurent"),
            U8.withName("max_log_num_errored")).withName("dci_streams_caps"),
        pad(6),
        U64.withName("max_wr_memcpy_length"),
        structLayout(
            U16.withName("failed_selftests"),
            U8.withName("crypto_engines"),
            U8.withName("wrapped_import_method"),
            U8.withName("log_max_num_deks"),
            pad(3),
            U32.withName("flags")).withName("crypto_caps"),
        pad(4)).withName("mlx5dv_context");

    /** Byte offset of {@code flags} in {@code struct mlx5dv_context}. */
    public static final long FLAGS_OFFSET = offset(LAYOUT, "flags");
    /** Byte offset of {@code comp_mask} in {@code struct mlx5dv_context}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code cqe_comp_caps.max_num} in {@code struct mlx5dv_context}. */
    public static final long CQE_COMP_MAX_NUM_OFFSET = offset(LAYOUT, "cqe_comp_caps", "max_num");
    /** Byte offset of {@code cqe_comp_caps.supported_format} in {@code struct mlx5dv_context}. */
    public static final long CQE_COMP_SUPPORTED_FORMAT_OFFSET = offset(LAYOUT, "cqe_comp_caps", "supported_format");
    /** Byte offset of {@code striding_rq_caps.min_single_stride_log_num_of_bytes} in {@code struct mlx5dv_context}. */
    public static final long STRIDING_MIN_STRIDE_BYTES_OFFSET =
        offset(LAYOUT, "striding_rq_caps", "min_single_stride_log_num_of_bytes");
    /** Byte offset of {@code striding_rq_caps.max_single_stride_log_num_of_bytes} in {@code struct mlx5dv_context}. */
    public static final long STRIDING_MAX_STRIDE_BYTES_OFFSET =
        offset(LAYOUT, "striding_rq_caps", "max_single_stride_log_num_of_bytes");
    /** Byte offset of {@code striding_rq_caps.min_single_wqe_log_num_of_strides} in {@code struct mlx5dv_context}. */
    public static final long STRIDING_MIN_STRIDES_OFFSET =
        offset(LAYOUT, "striding_rq_caps", "min_single_wqe_log_num_of_strides");
    /** Byte offset of {@code striding_rq_caps.max_single_wqe_log_num_of_strides} in {@code struct mlx5dv_context}. */
    public static final long STRIDING_MAX_STRIDES_OFFSET =
        offset(LAYOUT, "striding_rq_caps", "max_single_wqe_log_num_of_strides");
    /** Byte offset of {@code striding_rq_caps.supported_qpts} in {@code struct mlx5dv_context}. */
    public static final long STRIDING_SUPPORTED_QPTS_OFFSET = offset(LAYOUT, "striding_rq_caps", "supported_qpts");
    /** Byte offset of {@code max_clock_info_update_nsec} in {@code struct mlx5dv_context}. */
    public static final long MAX_CLOCK_INFO_UPDATE_NSEC_OFFSET = offset(LAYOUT, "max_clock_info_update_nsec");

    private Mlx5dvContext()
    {
    }
}
