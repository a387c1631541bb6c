// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_mw_bind_info} (verbs.h, rdma-core 44): embedded in ibv_send_wr's bind_mw; unused by mlx5j.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvMwBindInfo
{
    /** Memory layout of {@code struct ibv_mw_bind_info} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("mr"),
        U64.withName("addr"),
        U64.withName("length"),
        C_INT.withName("mw_access_flags"),
        pad(4)).withName("ibv_mw_bind_info");

    private IbvMwBindInfo()
    {
    }
}
