// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_rwq_ind_table_init_attr} (verbs.h, rdma-core 44): 2^log_ind_tbl_size WQ pointers. */
public final class IbvRwqIndTableInitAttr
{
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("log_ind_tbl_size"),
        pad(4),
        C_POINTER.withName("ind_tbl"),
        U32.withName("comp_mask"),
        pad(4)).withName("ibv_rwq_ind_table_init_attr");

    public static final long LOG_IND_TBL_SIZE_OFFSET = offset(LAYOUT, "log_ind_tbl_size");
    public static final long IND_TBL_OFFSET = offset(LAYOUT, "ind_tbl");

    private IbvRwqIndTableInitAttr()
    {
    }
}
