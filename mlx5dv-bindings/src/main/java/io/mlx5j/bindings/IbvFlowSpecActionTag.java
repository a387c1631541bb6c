// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_flow_spec_action_tag} (verbs.h, rdma-core 44): matching packets carry tag_id in their CQE.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvFlowSpecActionTag
{
    /** Memory layout of {@code struct ibv_flow_spec_action_tag} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("type"),
        U16.withName("size"),
        pad(2),
        U32.withName("tag_id")).withName("ibv_flow_spec_action_tag");

    /** Byte offset of {@code type} in {@code struct ibv_flow_spec_action_tag}. */
    public static final long TYPE_OFFSET = offset(LAYOUT, "type");
    /** Byte offset of {@code size} in {@code struct ibv_flow_spec_action_tag}. */
    public static final long SIZE_OFFSET = offset(LAYOUT, "size");
    /** Byte offset of {@code tag_id} in {@code struct ibv_flow_spec_action_tag}. */
    public static final long TAG_ID_OFFSET = offset(LAYOUT, "tag_id");

    private IbvFlowSpecActionTag()
    {
    }
}
