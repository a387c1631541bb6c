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
 */
public final class IbvWc
{
    /** enum ibv_wc_flags. */
    public static final int IBV_WC_GRH = 1 << 0;
    public static final int IBV_WC_WITH_IMM = 1 << 1;
    public static final int IBV_WC_IP_CSUM_OK = 1 << 2;
    public static final int IBV_WC_WITH_INV = 1 << 3;

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

    public static final long WR_ID_OFFSET = offset(LAYOUT, "wr_id");
    public static final long STATUS_OFFSET = offset(LAYOUT, "status");
    public static final long OPCODE_OFFSET = offset(LAYOUT, "opcode");
    public static final long VENDOR_ERR_OFFSET = offset(LAYOUT, "vendor_err");
    public static final long BYTE_LEN_OFFSET = offset(LAYOUT, "byte_len");
    public static final long IMM_DATA_OFFSET = offset(LAYOUT, "imm_data");
    public static final long INVALIDATED_RKEY_OFFSET = offset(LAYOUT, "invalidated_rkey");
    public static final long QP_NUM_OFFSET = offset(LAYOUT, "qp_num");
    public static final long SRC_QP_OFFSET = offset(LAYOUT, "src_qp");
    public static final long WC_FLAGS_OFFSET = offset(LAYOUT, "wc_flags");
    public static final long PKEY_INDEX_OFFSET = offset(LAYOUT, "pkey_index");
    public static final long SLID_OFFSET = offset(LAYOUT, "slid");
    public static final long SL_OFFSET = offset(LAYOUT, "sl");
    public static final long DLID_PATH_BITS_OFFSET = offset(LAYOUT, "dlid_path_bits");

    private IbvWc()
    {
    }
}
