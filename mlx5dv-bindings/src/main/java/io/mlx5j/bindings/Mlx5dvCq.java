// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct mlx5dv_cq} (mlx5dv.h, rdma-core 44): {@code buf} holds {@code cqe_cnt * cqe_size} bytes;
 * {@code dbrec} is [MLX5_CQ_SET_CI=0] consumer index and [MLX5_CQ_ARM_DB=1] arm word; {@code cq_uar} is the UAR page
 * whose MLX5_CQ_DOORBELL (0x20) offset takes the 64-bit arm doorbell.
 */
public final class Mlx5dvCq
{
    public static final int MLX5_CQ_SET_CI = 0;
    public static final int MLX5_CQ_ARM_DB = 1;
    public static final int MLX5_CQ_DOORBELL = 0x20;

    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("buf"),
        C_POINTER.withName("dbrec"),
        U32.withName("cqe_cnt"),
        U32.withName("cqe_size"),
        C_POINTER.withName("cq_uar"),
        U32.withName("cqn"),
        pad(4),
        U64.withName("comp_mask")).withName("mlx5dv_cq");

    public static final long BUF_OFFSET = offset(LAYOUT, "buf");
    public static final long DBREC_OFFSET = offset(LAYOUT, "dbrec");
    public static final long CQE_CNT_OFFSET = offset(LAYOUT, "cqe_cnt");
    public static final long CQE_SIZE_OFFSET = offset(LAYOUT, "cqe_size");
    public static final long CQ_UAR_OFFSET = offset(LAYOUT, "cq_uar");
    public static final long CQN_OFFSET = offset(LAYOUT, "cqn");
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");

    private Mlx5dvCq()
    {
    }
}
