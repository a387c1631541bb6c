// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_rwq_ind_table} (verbs.h, rdma-core 44): a receive WQ indirection table.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvRwqIndTable
{
    /** Memory layout of {@code struct ibv_rwq_ind_table} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_INT.withName("ind_tbl_handle"),
        C_INT.withName("ind_tbl_num"),
        U32.withName("comp_mask"),
        pad(4)).withName("ibv_rwq_ind_table");

    /** Byte offset of {@code context} in {@code struct ibv_rwq_ind_table}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code ind_tbl_num} in {@code struct ibv_rwq_ind_table}. */
    public static final long IND_TBL_NUM_OFFSET = offset(LAYOUT, "ind_tbl_num");

    private IbvRwqIndTable()
    {
    }
}
