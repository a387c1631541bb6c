// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_poll_cq_attr} (verbs.h, rdma-core 44): the argument of ibv_start_poll; comp_mask must be 0.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvPollCqAttr
{
    /** Memory layout of {@code struct ibv_poll_cq_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("comp_mask")).withName("ibv_poll_cq_attr");

    private IbvPollCqAttr()
    {
    }
}
