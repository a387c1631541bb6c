// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_srq_init_attr} (verbs.h, rdma-core 44): input of ibv_create_srq; granted sizes are written back.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvSrqInitAttr
{
    /** Memory layout of {@code struct ibv_srq_init_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("srq_context"),
        IbvSrqAttr.LAYOUT.withName("attr"),
        pad(4)).withName("ibv_srq_init_attr");

    /** Byte offset of {@code srq_context} in {@code struct ibv_srq_init_attr}. */
    public static final long SRQ_CONTEXT_OFFSET = offset(LAYOUT, "srq_context");
    /** Byte offset of {@code attr} in {@code struct ibv_srq_init_attr}. */
    public static final long ATTR_OFFSET = offset(LAYOUT, "attr");

    private IbvSrqInitAttr()
    {
    }
}
