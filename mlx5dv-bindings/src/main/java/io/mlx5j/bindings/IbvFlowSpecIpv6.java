// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_flow_spec_ipv6} (verbs.h, rdma-core 44). */
public final class IbvFlowSpecIpv6
{
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("type"),
        U16.withName("size"),
        pad(2),
        IbvFlowIpv6Filter.LAYOUT.withName("val"),
        IbvFlowIpv6Filter.LAYOUT.withName("mask")).withName("ibv_flow_spec_ipv6");

    public static final long TYPE_OFFSET = offset(LAYOUT, "type");
    public static final long SIZE_OFFSET = offset(LAYOUT, "size");
    public static final long VAL_OFFSET = offset(LAYOUT, "val");
    public static final long MASK_OFFSET = offset(LAYOUT, "mask");

    private IbvFlowSpecIpv6()
    {
    }
}
