// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct sockaddr_storage} (glibc bits/socket.h): room for any socket address; librdmacm's {@code rdma_addr}
 * holds source and destination in unions sized by it.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class SockaddrStorage
{
    /** Memory layout of {@code struct sockaddr_storage} (glibc bits/socket.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U16.withName("ss_family"),
        bytes(118).withName("__ss_padding"),
        C_LONG.withName("__ss_align")).withName("sockaddr_storage");

    /** Byte offset of {@code ss_family} in {@code struct sockaddr_storage}. */
    public static final long SS_FAMILY_OFFSET = offset(LAYOUT, "ss_family");

    private SockaddrStorage()
    {
    }
}
