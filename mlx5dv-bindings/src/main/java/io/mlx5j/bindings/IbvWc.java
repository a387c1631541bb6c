// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct ibv_wc} (verbs.h, rdma-core 44): what libmlx5's ibv_poll_cq decodes from a CQE; the CQE parity
 * tests compare it field by field with mlx5j's own decoding. {@code imm_data} is network order.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvWc
{
    /** enum ibv_wc_flags. */
    public static final int IBV_WC_GRH = 1 << 0;
    /** {@code IBV_WC_WITH_IMM} ({@code infiniband/verbs.h}). */
    public static final int IBV_WC_WITH_IMM = 1 << 1;
    /** {@code IBV_WC_IP_CSUM_OK} ({@code infiniband/verbs.h}). */
    public static final int IBV_WC_IP_CSUM_OK = 1 << 2;
    /** {@code IBV_WC_WITH_INV} ({@code infiniband/verbs.h}). */
    public static final int IBV_WC_WITH_INV = 1 << 3;

    /** Memory layout of {@code struct ibv_wc} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("wr_id"),
        C_INT.withName("status"),
        C_INT.withName("opcode"),
        U32.withName("vendor_err"),
        U32.withName("byte_len"),
        unionLayout(
            BE32.withName("imm_data"),
            U32.withName("invalidated_rkey")).withName(Layouts.ANON + "0"),
        U32.withName("qp_num"),
        U32.withName("src_qp"),
        C_INT.withName("wc_flags"),
        U16.withName("pkey_index"),
        U16.withName("slid"),
        U8.withName("sl"),
        U8.withName("dlid_path_bits"),
        pad(2)).withName("ibv_wc");

    /** Byte offset of {@code wr_id} in {@code struct ibv_wc}. */
    public static final long WR_ID_OFFSET = offset(LAYOUT, "wr_id");
    /** Byte offset of {@code status} in {@code struct ibv_wc}. */
    public static final long STATUS_OFFSET = offset(LAYOUT, "status");
    /** Byte offset of {@code opcode} in {@code struct ibv_wc}. */
    public static final long OPCODE_OFFSET = offset(LAYOUT, "opcode");
    /** Byte offset of {@code vendor_err} in {@code struct ibv_wc}. */
    public static final long VENDOR_ERR_OFFSET = offset(LAYOUT, "vendor_err");
    /** Byte offset of {@code byte_len} in {@code struct ibv_wc}. */
    public static final long BYTE_LEN_OFFSET = offset(LAYOUT, "byte_len");
    /** Byte offset of {@code imm_data} in {@code struct ibv_wc}. */
    public static final long IMM_DATA_OFFSET = offset(LAYOUT, "imm_data");
    /** Byte offset of {@code invalidated_rkey} in {@code struct ibv_wc}. */
    public static final long INVALIDATED_RKEY_OFFSET = offset(LAYOUT, "invalidated_rkey");
    /** Byte offset of {@code qp_num} in {@code struct ibv_wc}. */
    public static final long QP_NUM_OFFSET = offset(LAYOUT, "qp_num");
    /** Byte offset of {@code src_qp} in {@code struct ibv_wc}. */
    public static final long SRC_QP_OFFSET = offset(LAYOUT, "src_qp");
    /** Byte offset of {@code wc_flags} in {@code struct ibv_wc}. */
    public static final long WC_FLAGS_OFFSET = offset(LAYOUT, "wc_flags");
    /** Byte offset of {@code pkey_index} in {@code struct ibv_wc}. */
    public static final long PKEY_INDEX_OFFSET = offset(LAYOUT, "pkey_index");
    /** Byte offset of {@code slid} in {@code struct ibv_wc}. */
    public static final long SLID_OFFSET = offset(LAYOUT, "slid");
    /** Byte offset of {@code sl} in {@code struct ibv_wc}. */
    public static final long SL_OFFSET = offset(LAYOUT, "sl");
    /** Byte offset of {@code dlid_path_bits} in {@code struct ibv_wc}. */
    public static final long DLID_PATH_BITS_OFFSET = offset(LAYOUT, "dlid_path_bits");

    private IbvWc()
    {
    }
}
