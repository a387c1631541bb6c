// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_tmh} (tm_types.h, rdma-core 44): tag-matching header, a member of mlx5_cqe64's first union.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvTmh
{
    /** Memory layout of {@code struct ibv_tmh} (tm_types.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U8.withName("opcode"),
        bytes(3).withName("reserved"),
        BE32.withName("app_ctx"),
        BE64.withName("tag")).withName("ibv_tmh");

    private IbvTmh()
    {
    }
}
