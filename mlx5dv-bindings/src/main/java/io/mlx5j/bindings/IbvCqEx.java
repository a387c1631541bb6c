// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_cq_ex} (verbs.h, rdma-core 44): what ibv_create_cq_ex / mlx5dv_create_cq return. It starts with
 * the same members as {@code struct ibv_cq}; ibv_cq_ex_to_cq is a plain cast, so the same address is an ibv_cq.
 * mlx5j polls in Java; the poll function pointers are listed so the size matches the header.
 */
public final class IbvCqEx
{
    /** Memory layout of {@code struct ibv_cq_ex} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("channel"),
        C_POINTER.withName("cq_context"),
        U32.withName("handle"),
        C_INT.withName("cqe"),
        PTHREAD_MUTEX_T.withName("mutex"),
        PTHREAD_COND_T.withName("cond"),
        U32.withName("comp_events_completed"),
        U32.withName("async_events_completed"),
        U32.withName("comp_mask"),
        C_INT.withName("status"),
        U64.withName("wr_id"),
        C_POINTER.withName("start_poll"),
        C_POINTER.withName("next_poll"),
        C_POINTER.withName("end_poll"),
        C_POINTER.withName("read_opcode"),
        C_POINTER.withName("read_vendor_err"),
        C_POINTER.withName("read_byte_len"),
        C_POINTER.withName("read_imm_data"),
        C_POINTER.withName("read_qp_num"),
        C_POINTER.withName("read_src_qp"),
        C_POINTER.withName("read_wc_flags"),
        C_POINTER.withName("read_slid"),
        C_POINTER.withName("read_sl"),
        C_POINTER.withName("read_dlid_path_bits"),
        C_POINTER.withName("read_completion_ts"),
        C_POINTER.withName("read_cvlan"),
        C_POINTER.withName("read_flow_tag"),
        C_POINTER.withName("read_tm_info"),
        C_POINTER.withName("read_completion_wallclock_ns")).withName("ibv_cq_ex");

    /** Byte offset of {@code context} in {@code struct ibv_cq_ex}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code cqe} in {@code struct ibv_cq_ex}. */
    public static final long CQE_OFFSET = offset(LAYOUT, "cqe");
    /** Byte offset of {@code comp_mask} in {@code struct ibv_cq_ex}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code status} in {@code struct ibv_cq_ex}. */
    public static final long STATUS_OFFSET = offset(LAYOUT, "status");
    /** Byte offset of {@code wr_id} in {@code struct ibv_cq_ex}. */
    public static final long WR_ID_OFFSET = offset(LAYOUT, "wr_id");
    /** Byte offset of {@code start_poll} in {@code struct ibv_cq_ex}. */
    public static final long START_POLL_OFFSET = offset(LAYOUT, "start_poll");
    /** Byte offset of {@code next_poll} in {@code struct ibv_cq_ex}. */
    public static final long NEXT_POLL_OFFSET = offset(LAYOUT, "next_poll");
    /** Byte offset of {@code end_poll} in {@code struct ibv_cq_ex}. */
    public static final long END_POLL_OFFSET = offset(LAYOUT, "end_poll");
    /** Byte offset of {@code read_opcode} in {@code struct ibv_cq_ex}. */
    public static final long READ_OPCODE_OFFSET = offset(LAYOUT, "read_opcode");
    /** Byte offset of {@code read_vendor_err} in {@code struct ibv_cq_ex}. */
    public static final long READ_VENDOR_ERR_OFFSET = offset(LAYOUT, "read_vendor_err");
    /** Byte offset of {@code read_byte_len} in {@code struct ibv_cq_ex}. */
    public static final long READ_BYTE_LEN_OFFSET = offset(LAYOUT, "read_byte_len");
    /** Byte offset of {@code read_imm_data} in {@code struct ibv_cq_ex}. */
    public static final long READ_IMM_DATA_OFFSET = offset(LAYOUT, "read_imm_data");
    /** Byte offset of {@code read_qp_num} in {@code struct ibv_cq_ex}. */
    public static final long READ_QP_NUM_OFFSET = offset(LAYOUT, "read_qp_num");
    /** Byte offset of {@code read_src_qp} in {@code struct ibv_cq_ex}. */
    public static final long READ_SRC_QP_OFFSET = offset(LAYOUT, "read_src_qp");
    /** Byte offset of {@code read_wc_flags} in {@code struct ibv_cq_ex}. */
    public static final long READ_WC_FLAGS_OFFSET = offset(LAYOUT, "read_wc_flags");
    /** Byte offset of {@code read_slid} in {@code struct ibv_cq_ex}. */
    public static final long READ_SLID_OFFSET = offset(LAYOUT, "read_slid");
    /** Byte offset of {@code read_sl} in {@code struct ibv_cq_ex}. */
    public static final long READ_SL_OFFSET = offset(LAYOUT, "read_sl");
    /** Byte offset of {@code read_dlid_path_bits} in {@code struct ibv_cq_ex}. */
    public static final long READ_DLID_PATH_BITS_OFFSET = offset(LAYOUT, "read_dlid_path_bits");
    /** Byte offset of {@code read_completion_ts} in {@code struct ibv_cq_ex}. */
    public static final long READ_COMPLETION_TS_OFFSET = offset(LAYOUT, "read_completion_ts");
    /** Byte offset of {@code read_cvlan} in {@code struct ibv_cq_ex}. */
    public static final long READ_CVLAN_OFFSET = offset(LAYOUT, "read_cvlan");
    /** Byte offset of {@code read_flow_tag} in {@code struct ibv_cq_ex}. */
    public static final long READ_FLOW_TAG_OFFSET = offset(LAYOUT, "read_flow_tag");
    /** Byte offset of {@code read_completion_wallclock_ns} in {@code struct ibv_cq_ex}. */
    public static final long READ_COMPLETION_WALLCLOCK_NS_OFFSET = offset(LAYOUT, "read_completion_wallclock_ns");

    private IbvCqEx()
    {
    }
}
