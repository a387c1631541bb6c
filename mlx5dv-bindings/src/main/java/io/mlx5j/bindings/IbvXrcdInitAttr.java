// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_xrcd_init_attr} (verbs.h, rdma-core 44): input of ibv_open_xrcd. {@code fd} -1 asks for a
 * private domain; a file's descriptor names the domain every process that opens that file shares.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvXrcdInitAttr
{
    /** enum ibv_xrcd_init_attr_mask: {@code fd} is valid. */
    public static final int IBV_XRCD_INIT_ATTR_FD = 1 << 0;
    /** enum ibv_xrcd_init_attr_mask: {@code oflags} is valid. */
    public static final int IBV_XRCD_INIT_ATTR_OFLAGS = 1 << 1;

    /** Memory layout of {@code struct ibv_xrcd_init_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("comp_mask"),
        C_INT.withName("fd"),
        C_INT.withName("oflags")).withName("ibv_xrcd_init_attr");

    /** Byte offset of {@code comp_mask} in {@code struct ibv_xrcd_init_attr}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code fd} in {@code struct ibv_xrcd_init_attr}. */
    public static final long FD_OFFSET = offset(LAYOUT, "fd");
    /** Byte offset of {@code oflags} in {@code struct ibv_xrcd_init_attr}. */
    public static final long OFLAGS_OFFSET = offset(LAYOUT, "oflags");

    private IbvXrcdInitAttr()
    {
    }
}
