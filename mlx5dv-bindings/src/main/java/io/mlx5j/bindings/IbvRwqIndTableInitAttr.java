// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_rwq_ind_table_init_attr} (verbs.h, rdma-core 44): 2^log_ind_tbl_size WQ pointers.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvRwqIndTableInitAttr
{
    /** Memory layout of {@code struct ibv_rwq_ind_table_init_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("log_ind_tbl_size"),
        pad(4),
        C_POINTER.withName("ind_tbl"),
        U32.withName("comp_mask"),
        pad(4)).withName("ibv_rwq_ind_table_init_attr");

    /** Byte offset of {@code log_ind_tbl_size} in {@code struct ibv_rwq_ind_table_init_attr}. */
    public static final long LOG_IND_TBL_SIZE_OFFSET = offset(LAYOUT, "log_ind_tbl_size");
    /** Byte offset of {@code ind_tbl} in {@code struct ibv_rwq_ind_table_init_attr}. */
    public static final long IND_TBL_OFFSET = offset(LAYOUT, "ind_tbl");

    private IbvRwqIndTableInitAttr()
    {
    }
}
