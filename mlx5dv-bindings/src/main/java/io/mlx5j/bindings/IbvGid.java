// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code union ibv_gid} (verbs.h, rdma-core 44): 16 bytes in network order; {@code global} halves are __be64.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvGid
{
    /** Memory layout of {@code union ibv_gid} (verbs.h). */
    public static final GroupLayout LAYOUT = unionLayout(
        bytes(16).withName("raw"),
        structLayout(
            BE64.withName("subnet_prefix"),
            BE64.withName("interface_id")).withName("global")).withName("ibv_gid");

    /** Byte offset of {@code raw} in {@code union ibv_gid}. */
    public static final long RAW_OFFSET = offset(LAYOUT, "raw");
    /** Byte offset of {@code global.subnet_prefix} in {@code union ibv_gid}. */
    public static final long SUBNET_PREFIX_OFFSET = offset(LAYOUT, "global", "subnet_prefix");
    /** Byte offset of {@code global.interface_id} in {@code union ibv_gid}. */
    public static final long INTERFACE_ID_OFFSET = offset(LAYOUT, "global", "interface_id");

    private IbvGid()
    {
    }
}
