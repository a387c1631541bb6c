// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct rdma_ib_addr} (rdma/rdma_cma.h, rdma-core 44): the GIDs and P_Key an address resolved to.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaIbAddr
{
    /** Memory layout of {@code struct rdma_ib_addr} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        IbvGid.LAYOUT.withName("sgid"),
        IbvGid.LAYOUT.withName("dgid"),
        BE16.withName("pkey"),
        pad(6)).withName("rdma_ib_addr");

    /** Byte offset of {@code sgid} in {@code struct rdma_ib_addr}. */
    public static final long SGID_OFFSET = offset(LAYOUT, "sgid");
    /** Byte offset of {@code dgid} in {@code struct rdma_ib_addr}. */
    public static final long DGID_OFFSET = offset(LAYOUT, "dgid");
    /** Byte offset of {@code pkey} in {@code struct rdma_ib_addr}. */
    public static final long PKEY_OFFSET = offset(LAYOUT, "pkey");

    private RdmaIbAddr()
    {
    }
}
