// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_sge} (verbs.h, rdma-core 44). */
public final class IbvSge
{
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("addr"),
        U32.withName("length"),
        U32.withName("lkey")).withName("ibv_sge");

    public static final long ADDR_OFFSET = offset(LAYOUT, "addr");
    public static final long LENGTH_OFFSET = offset(LAYOUT, "length");
    public static final long LKEY_OFFSET = offset(LAYOUT, "lkey");

    private IbvSge()
    {
    }
}
