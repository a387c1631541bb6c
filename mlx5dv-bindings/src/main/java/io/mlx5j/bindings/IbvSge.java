// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_sge} (verbs.h, rdma-core 44).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvSge
{
    /** Memory layout of {@code struct ibv_sge} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U64.withName("addr"),
        U32.withName("length"),
        U32.withName("lkey")).withName("ibv_sge");

    /** Byte offset of {@code addr} in {@code struct ibv_sge}. */
    public static final long ADDR_OFFSET = offset(LAYOUT, "addr");
    /** Byte offset of {@code length} in {@code struct ibv_sge}. */
    public static final long LENGTH_OFFSET = offset(LAYOUT, "length");
    /** Byte offset of {@code lkey} in {@code struct ibv_sge}. */
    public static final long LKEY_OFFSET = offset(LAYOUT, "lkey");

    private IbvSge()
    {
    }
}
