// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct ibv_send_wr} (verbs.h, rdma-core 44): the libmlx5 ibv_post_send input, used by the parity tests to
 * post the same work request through libmlx5 that mlx5j encodes itself. {@code imm_data} is already big-endian
 * (network order) in C, hence {@link CTypes#BE32}.
 */
public final class IbvSendWr
{
    /** enum ibv_wr_opcode. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    public static final int IBV_WR_LOCAL_INV = 7;
    public static final int IBV_WR_BIND_MW = 8;
    public static final int IBV_WR_SEND_WITH_INV = 9;
    public static final int IBV_WR_TSO = 10;
    public static final int IBV_WR_DRIVER1 = 11;
    public static final int IBV_WR_ATOMIC_WRITE = 15;   // verbs.h skips 12..14 (rdma-core v44)

    /** enum ibv_send_flags. */
    public static final int IBV_SEND_FENCE = 1 << 0;
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    public static final int IBV_SEND_INLINE = 1 << 3;
    public static final int IBV_SEND_IP_CSUM = 1 << 4;

    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("wr_id"),
        C_POINTER.withName("next"),
        C_POINTER.withName("sg_list"),
        C_INT.withName("num_sge"),
        C_INT.withName("opcode"),
        C_INT.withName("send_flags"),
        unionLayout(
            BE32.withName("imm_data"),
            U32.withName("invalidate_rkey")).withName(Layouts.ANON + "0"),
        unionLayout(
            structLayout(
                U64.withName("remote_addr"),
                U32.withName("rkey"),
                pad(4)).withName("rdma"),
            structLayout(
                U64.withName("remote_addr"),
                U64.withName("compare_add"),
                U64.withName("swap"),
                U32.withName("rkey"),
                pad(4)).withName("atomic"),
            structLayout(
                C_POINTER.withName("ah"),
                U32.withName("remote_qpn"),
                U32.withName("remote_qkey")).withName("ud")).withName("wr"),
        unionLayout(
            structLayout(
                U32.withName("remote_srqn")).withName("xrc")).withName("qp_type"),
        pad(4),
        unionLayout(
            structLayout(
                C_POINTER.withName("mw"),
                U32.withName("rkey"),
                pad(4),
                IbvMwBindInfo.LAYOUT.withName("bind_info")).withName("bind_mw"),
            structLayout(
                C_POINTER.withName("hdr"),
                U16.withName("hdr_sz"),
                U16.withName("mss"),
                pad(4)).withName("tso")).withName(Layouts.ANON + "1")).withName("ibv_send_wr");

    public static final long WR_ID_OFFSET = offset(LAYOUT, "wr_id");
    public static final long NEXT_OFFSET = offset(LAYOUT, "next");
    public static final long SG_LIST_OFFSET = offset(LAYOUT, "sg_list");
    public static final long NUM_SGE_OFFSET = offset(LAYOUT, "num_sge");
    public static final long OPCODE_OFFSET = offset(LAYOUT, "opcode");
    public static final long SEND_FLAGS_OFFSET = offset(LAYOUT, "send_flags");
    public static final long IMM_DATA_OFFSET = offset(LAYOUT, "imm_data");
    public static final long INVALIDATE_RKEY_OFFSET = offset(LAYOUT, "invalidate_rkey");
    public static final long RDMA_REMOTE_ADDR_OFFSET = offset(LAYOUT, "wr", "rdma", "remote_addr");
    public static final long RDMA_RKEY_OFFSET = offset(LAYOUT, "wr", "rdma", "rkey");
    public static final long ATOMIC_REMOTE_ADDR_OFFSET = offset(LAYOUT, "wr", "atomic", "remote_addr");
    public static final long ATOMIC_COMPARE_ADD_OFFSET = offset(LAYOUT, "wr", "atomic", "compare_add");
    public static final long ATOMIC_SWAP_OFFSET = offset(LAYOUT, "wr", "atomic", "swap");
    public static final long ATOMIC_RKEY_OFFSET = offset(LAYOUT, "wr", "atomic", "rkey");
    public static final long UD_AH_OFFSET = offset(LAYOUT, "wr", "ud", "ah");
    public static final long UD_REMOTE_QPN_OFFSET = offset(LAYOUT, "wr", "ud", "remote_qpn");
    public static final long UD_REMOTE_QKEY_OFFSET = offset(LAYOUT, "wr", "ud", "remote_qkey");
    public static final long XRC_REMOTE_SRQN_OFFSET = offset(LAYOUT, "qp_type", "xrc", "remote_srqn");

    private IbvSendWr()
    {
    }
}
