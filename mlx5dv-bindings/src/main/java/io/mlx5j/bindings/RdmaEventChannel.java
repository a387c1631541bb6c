// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct rdma_event_channel} (rdma/rdma_cma.h, rdma-core 44): the fd events are read from (poll it).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaEventChannel
{
    /** Memory layout of {@code struct rdma_event_channel} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("fd")).withName("rdma_event_channel");

    /** Byte offset of {@code fd} in {@code struct rdma_event_channel}. */
    public static final long FD_OFFSET = offset(LAYOUT, "fd");

    private RdmaEventChannel()
    {
    }
}
