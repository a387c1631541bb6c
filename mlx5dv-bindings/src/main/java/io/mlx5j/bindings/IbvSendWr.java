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
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvSendWr
{
    /** enum ibv_wr_opcode. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_WR_LOCAL_INV} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_LOCAL_INV = 7;
    /** {@code IBV_WR_BIND_MW} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_BIND_MW = 8;
    /** {@code IBV_WR_SEND_WITH_INV} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_SEND_WITH_INV = 9;
    /** {@code IBV_WR_TSO} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_TSO = 10;
    /** {@code IBV_WR_DRIVER1} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_DRIVER1 = 11;
    /** {@code IBV_WR_ATOMIC_WRITE} ({@code infiniband/verbs.h}). */
    public static final int IBV_WR_ATOMIC_WRITE = 15;   // verbs.h skips 12..14 (rdma-core v44)

    /** enum ibv_send_flags. */
    public static final int IBV_SEND_FENCE = 1 << 0;
    /** {@code IBV_SEND_SIGNALED} ({@code infiniband/verbs.h}). */
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_SOLICITED} ({@code infiniband/verbs.h}). */
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    /** {@code IBV_SEND_INLINE} ({@code infiniband/verbs.h}). */
    public static final int IBV_SEND_INLINE = 1 << 3;
    /** {@code IBV_SEND_IP_CSUM} ({@code infiniband/verbs.h}). */
    public static final int IBV_SEND_IP_CSUM = 1 << 4;

    /** Memory layout of {@code struct ibv_send_wr} (verbs.h). */
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

    /** Byte offset of {@code wr_id} in {@code struct ibv_send_wr}. */
    public static final long WR_ID_OFFSET = offset(LAYOUT, "wr_id");
    /** Byte offset of {@code next} in {@code struct ibv_send_wr}. */
    public static final long NEXT_OFFSET = offset(LAYOUT, "next");
    /** Byte offset of {@code sg_list} in {@code struct ibv_send_wr}. */
    public static final long SG_LIST_OFFSET = offset(LAYOUT, "sg_list");
    /** Byte offset of {@code num_sge} in {@code struct ibv_send_wr}. */
    public static final long NUM_SGE_OFFSET = offset(LAYOUT, "num_sge");
    /** Byte offset of {@code opcode} in {@code struct ibv_send_wr}. */
    public static final long OPCODE_OFFSET = offset(LAYOUT, "opcode");
    /** Byte offset of {@code send_flags} in {@code struct ibv_send_wr}. */
    public static final long SEND_FLAGS_OFFSET = offset(LAYOUT, "send_flags");
    /** Byte offset of {@code imm_data} in {@code struct ibv_send_wr}. */
    public static final long IMM_DATA_OFFSET = offset(LAYOUT, "imm_data");
    /** Byte offset of {@code invalidate_rkey} in {@code struct ibv_send_wr}. */
    public static final long INVALIDATE_RKEY_OFFSET = offset(LAYOUT, "invalidate_rkey");
    /** Byte offset of {@code wr.rdma.remote_addr} in {@code struct ibv_send_wr}. */
    public static final long RDMA_REMOTE_ADDR_OFFSET = offset(LAYOUT, "wr", "rdma", "remote_addr");
    /** Byte offset of {@code wr.rdma.rkey} in {@code struct ibv_send_wr}. */
    public static final long RDMA_RKEY_OFFSET = offset(LAYOUT, "wr", "rdma", "rkey");
    /** Byte offset of {@code wr.atomic.remote_addr} in {@code struct ibv_send_wr}. */
    public static final long ATOMIC_REMOTE_ADDR_OFFSET = offset(LAYOUT, "wr", "atomic", "remote_addr");
    /** Byte offset of {@code wr.atomic.compare_add} in {@code struct ibv_send_wr}. */
    public static final long ATOMIC_COMPARE_ADD_OFFSET = offset(LAYOUT, "wr", "atomic", "compare_add");
    /** Byte offset of {@code wr.atomic.swap} in {@code struct ibv_send_wr}. */
    public static final long ATOMIC_SWAP_OFFSET = offset(LAYOUT, "wr", "atomic", "swap");
    /** Byte offset of {@code wr.atomic.rkey} in {@code struct ibv_send_wr}. */
    public static final long ATOMIC_RKEY_OFFSET = offset(LAYOUT, "wr", "atomic", "rkey");
    /** Byte offset of {@code wr.ud.ah} in {@code struct ibv_send_wr}. */
    public static final long UD_AH_OFFSET = offset(LAYOUT, "wr", "ud", "ah");
    /** Byte offset of {@code wr.ud.remote_qpn} in {@code struct ibv_send_wr}. */
    public static final long UD_REMOTE_QPN_OFFSET = offset(LAYOUT, "wr", "ud", "remote_qpn");
    /** Byte offset of {@code wr.ud.remote_qkey} in {@code struct ibv_send_wr}. */
    public static final long UD_REMOTE_QKEY_OFFSET = offset(LAYOUT, "wr", "ud", "remote_qkey");
    /** Byte offset of {@code qp_type.xrc.remote_srqn} in {@code struct ibv_send_wr}. */
    public static final long XRC_REMOTE_SRQN_OFFSET = offset(LAYOUT, "qp_type", "xrc", "remote_srqn");

    private IbvSendWr()
    {
    }
}
