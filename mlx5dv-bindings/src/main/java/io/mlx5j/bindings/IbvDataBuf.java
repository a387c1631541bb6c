// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_data_buf} (verbs.h, rdma-core 44): element of ibv_wr_set_inline_data_list.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvDataBuf
{
    /** Memory layout of {@code struct ibv_data_buf} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("addr"),
        C_LONG.withName("length")).withName("ibv_data_buf");

    /** Byte offset of {@code addr} in {@code struct ibv_data_buf}. */
    public static final long ADDR_OFFSET = offset(LAYOUT, "addr");
    /** Byte offset of {@code length} in {@code struct ibv_data_buf}. */
    public static final long LENGTH_OFFSET = offset(LAYOUT, "length");

    private IbvDataBuf()
    {
    }
}
