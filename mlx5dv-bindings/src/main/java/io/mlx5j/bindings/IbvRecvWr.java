// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_recv_wr} (verbs.h, rdma-core 44): input of ibv_post_recv / ibv_post_srq_recv.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvRecvWr
{
    /** Memory layout of {@code struct ibv_recv_wr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("wr_id"),
        C_POINTER.withName("next"),
        C_POINTER.withName("sg_list"),
        C_INT.withName("num_sge"),
        pad(4)).withName("ibv_recv_wr");

    /** Byte offset of {@code wr_id} in {@code struct ibv_recv_wr}. */
    public static final long WR_ID_OFFSET = offset(LAYOUT, "wr_id");
    /** Byte offset of {@code next} in {@code struct ibv_recv_wr}. */
    public static final long NEXT_OFFSET = offset(LAYOUT, "next");
    /** Byte offset of {@code sg_list} in {@code struct ibv_recv_wr}. */
    public static final long SG_LIST_OFFSET = offset(LAYOUT, "sg_list");
    /** Byte offset of {@code num_sge} in {@code struct ibv_recv_wr}. */
    public static final long NUM_SGE_OFFSET = offset(LAYOUT, "num_sge");

    private IbvRecvWr()
    {
    }
}
