// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_qp_cap} (verbs.h, rdma-core 44): requested on create, the granted values are written back.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvQpCap
{
    /** Memory layout of {@code struct ibv_qp_cap} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("max_send_wr"),
        U32.withName("max_recv_wr"),
        U32.withName("max_send_sge"),
        U32.withName("max_recv_sge"),
        U32.withName("max_inline_data")).withName("ibv_qp_cap");

    /** Byte offset of {@code max_send_wr} in {@code struct ibv_qp_cap}. */
    public static final long MAX_SEND_WR_OFFSET = offset(LAYOUT, "max_send_wr");
    /** Byte offset of {@code max_recv_wr} in {@code struct ibv_qp_cap}. */
    public static final long MAX_RECV_WR_OFFSET = offset(LAYOUT, "max_recv_wr");
    /** Byte offset of {@code max_send_sge} in {@code struct ibv_qp_cap}. */
    public static final long MAX_SEND_SGE_OFFSET = offset(LAYOUT, "max_send_sge");
    /** Byte offset of {@code max_recv_sge} in {@code struct ibv_qp_cap}. */
    public static final long MAX_RECV_SGE_OFFSET = offset(LAYOUT, "max_recv_sge");
    /** Byte offset of {@code max_inline_data} in {@code struct ibv_qp_cap}. */
    public static final long MAX_INLINE_DATA_OFFSET = offset(LAYOUT, "max_inline_data");

    private IbvQpCap()
    {
    }
}
