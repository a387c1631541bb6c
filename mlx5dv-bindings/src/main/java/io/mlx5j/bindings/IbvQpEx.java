// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_qp_ex} (verbs.h, rdma-core 44): the ibv_wr_* API. Every ibv_wr_* is static inline and calls the
 * pointer of the same name here; {@code wr_id} and {@code wr_flags} are plain fields the caller sets before each
 * builder call. Obtain it with the exported ibv_qp_to_qp_ex on a QP created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvQpEx
{
    /** Memory layout of {@code struct ibv_qp_ex} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        IbvQp.LAYOUT.withName("qp_base"),
        U64.withName("comp_mask"),
        U64.withName("wr_id"),
        C_INT.withName("wr_flags"),
        pad(4),
        C_POINTER.withName("wr_atomic_cmp_swp"),
        C_POINTER.withName("wr_atomic_fetch_add"),
        C_POINTER.withName("wr_bind_mw"),
        C_POINTER.withName("wr_local_inv"),
        C_POINTER.withName("wr_rdma_read"),
        C_POINTER.withName("wr_rdma_write"),
        C_POINTER.withName("wr_rdma_write_imm"),
        C_POINTER.withName("wr_send"),
        C_POINTER.withName("wr_send_imm"),
        C_POINTER.withName("wr_send_inv"),
        C_POINTER.withName("wr_send_tso"),
        C_POINTER.withName("wr_set_ud_addr"),
        C_POINTER.withName("wr_set_xrc_srqn"),
        C_POINTER.withName("wr_set_inline_data"),
        C_POINTER.withName("wr_set_inline_data_list"),
        C_POINTER.withName("wr_set_sge"),
        C_POINTER.withName("wr_set_sge_list"),
        C_POINTER.withName("wr_start"),
        C_POINTER.withName("wr_complete"),
        C_POINTER.withName("wr_abort"),
        C_POINTER.withName("wr_atomic_write")).withName("ibv_qp_ex");

    /** Byte offset of {@code qp_base} in {@code struct ibv_qp_ex}. */
    public static final long QP_BASE_OFFSET = offset(LAYOUT, "qp_base");
    /** Byte offset of {@code comp_mask} in {@code struct ibv_qp_ex}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code wr_id} in {@code struct ibv_qp_ex}. */
    public static final long WR_ID_OFFSET = offset(LAYOUT, "wr_id");
    /** Byte offset of {@code wr_flags} in {@code struct ibv_qp_ex}. */
    public static final long WR_FLAGS_OFFSET = offset(LAYOUT, "wr_flags");
    /** Byte offset of {@code wr_atomic_cmp_swp} in {@code struct ibv_qp_ex}. */
    public static final long WR_ATOMIC_CMP_SWP_OFFSET = offset(LAYOUT, "wr_atomic_cmp_swp");
    /** Byte offset of {@code wr_atomic_fetch_add} in {@code struct ibv_qp_ex}. */
    public static final long WR_ATOMIC_FETCH_ADD_OFFSET = offset(LAYOUT, "wr_atomic_fetch_add");
    /** Byte offset of {@code wr_local_inv} in {@code struct ibv_qp_ex}. */
    public static final long WR_LOCAL_INV_OFFSET = offset(LAYOUT, "wr_local_inv");
    /** Byte offset of {@code wr_rdma_read} in {@code struct ibv_qp_ex}. */
    public static final long WR_RDMA_READ_OFFSET = offset(LAYOUT, "wr_rdma_read");
    /** Byte offset of {@code wr_rdma_write} in {@code struct ibv_qp_ex}. */
    public static final long WR_RDMA_WRITE_OFFSET = offset(LAYOUT, "wr_rdma_write");
    /** Byte offset of {@code wr_rdma_write_imm} in {@code struct ibv_qp_ex}. */
    public static final long WR_RDMA_WRITE_IMM_OFFSET = offset(LAYOUT, "wr_rdma_write_imm");
    /** Byte offset of {@code wr_send} in {@code struct ibv_qp_ex}. */
    public static final long WR_SEND_OFFSET = offset(LAYOUT, "wr_send");
    /** Byte offset of {@code wr_send_imm} in {@code struct ibv_qp_ex}. */
    public static final long WR_SEND_IMM_OFFSET = offset(LAYOUT, "wr_send_imm");
    /** Byte offset of {@code wr_send_inv} in {@code struct ibv_qp_ex}. */
    public static final long WR_SEND_INV_OFFSET = offset(LAYOUT, "wr_send_inv");
    /** Byte offset of {@code wr_set_ud_addr} in {@code struct ibv_qp_ex}. */
    public static final long WR_SET_UD_ADDR_OFFSET = offset(LAYOUT, "wr_set_ud_addr");
    /** Byte offset of {@code wr_set_inline_data} in {@code struct ibv_qp_ex}. */
    public static final long WR_SET_INLINE_DATA_OFFSET = offset(LAYOUT, "wr_set_inline_data");
    /** Byte offset of {@code wr_set_inline_data_list} in {@code struct ibv_qp_ex}. */
    public static final long WR_SET_INLINE_DATA_LIST_OFFSET = offset(LAYOUT, "wr_set_inline_data_list");
    /** Byte offset of {@code wr_set_sge} in {@code struct ibv_qp_ex}. */
    public static final long WR_SET_SGE_OFFSET = offset(LAYOUT, "wr_set_sge");
    /** Byte offset of {@code wr_set_sge_list} in {@code struct ibv_qp_ex}. */
    public static final long WR_SET_SGE_LIST_OFFSET = offset(LAYOUT, "wr_set_sge_list");
    /** Byte offset of {@code wr_start} in {@code struct ibv_qp_ex}. */
    public static final long WR_START_OFFSET = offset(LAYOUT, "wr_start");
    /** Byte offset of {@code wr_complete} in {@code struct ibv_qp_ex}. */
    public static final long WR_COMPLETE_OFFSET = offset(LAYOUT, "wr_complete");
    /** Byte offset of {@code wr_abort} in {@code struct ibv_qp_ex}. */
    public static final long WR_ABORT_OFFSET = offset(LAYOUT, "wr_abort");

    private IbvQpEx()
    {
    }
}
