// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct rdma_ib_addr} (rdma/rdma_cma.h, rdma-core 44): the GIDs and P_Key an address resolved to. */
public final class RdmaIbAddr
{
    public static final GroupLayout LAYOUT = structLayout(
        IbvGid.LAYOUT.withName("sgid"),
        IbvGid.LAYOUT.withName("dgid"),
        BE16.withName("pkey"),
        pad(6)).withName("rdma_ib_addr");

    public static final long SGID_OFFSET = offset(LAYOUT, "sgid");
    public static final long DGID_OFFSET = offset(LAYOUT, "dgid");
    public static final long PKEY_OFFSET = offset(LAYOUT, "pkey");

    private RdmaIbAddr()
    {
    }
}
