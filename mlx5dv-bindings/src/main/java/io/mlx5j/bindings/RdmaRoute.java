// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct rdma_route} (rdma/rdma_cma.h, rdma-core 44): the resolved addresses and path records.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaRoute
{
    /** Memory layout of {@code struct rdma_route} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        RdmaAddr.LAYOUT.withName("addr"),
        C_POINTER.withName("path_rec"),
        C_INT.withName("num_paths"),
        pad(4)).withName("rdma_route");

    /** Byte offset of {@code addr} in {@code struct rdma_route}. */
    public static final long ADDR_OFFSET = offset(LAYOUT, "addr");
    /** Byte offset of {@code path_rec} in {@code struct rdma_route}. */
    public static final long PATH_REC_OFFSET = offset(LAYOUT, "path_rec");
    /** Byte offset of {@code num_paths} in {@code struct rdma_route}. */
    public static final long NUM_PATHS_OFFSET = offset(LAYOUT, "num_paths");

    private RdmaRoute()
    {
    }
}
