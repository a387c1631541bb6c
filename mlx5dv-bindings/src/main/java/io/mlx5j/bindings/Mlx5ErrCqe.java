package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct mlx5_err_cqe} (mlx5dv.h, rdma-core 44): the error view of a CQE (opcode REQ_ERR / RESP_ERR). The
 * header types the words as uint32_t/uint16_t, but they are device (big-endian) words that libmlx5 converts with
 * be32toh/be16toh (providers/mlx5/cq.c), so they are big-endian here.
 */
public final class Mlx5ErrCqe
{
    public static final GroupLayout LAYOUT = structLayout(
        bytes(32).withName("rsvd0"),
        BE32.withName("srqn"),
        bytes(18).withName("rsvd1"),
        U8.withName("vendor_err_synd"),
        U8.withName("syndrome"),
        BE32.withName("s_wqe_opcode_qpn"),
        BE16.withName("wqe_counter"),
        U8.withName("signature"),
        U8.withName("op_own")).withName("mlx5_err_cqe");

    public static final long SRQN_OFFSET = offset(LAYOUT, "srqn");
    public static final long VENDOR_ERR_SYND_OFFSET = offset(LAYOUT, "vendor_err_synd");
    public static final long SYNDROME_OFFSET = offset(LAYOUT, "syndrome");
    public static final long S_WQE_OPCODE_QPN_OFFSET = offset(LAYOUT, "s_wqe_opcode_qpn");
    public static final long WQE_COUNTER_OFFSET = offset(LAYOUT, "wqe_counter");
    public static final long OP_OWN_OFFSET = offset(LAYOUT, "op_own");

    private Mlx5ErrCqe()
    {
    }
}
