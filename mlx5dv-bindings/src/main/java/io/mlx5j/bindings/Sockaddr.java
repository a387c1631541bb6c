// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct sockaddr} (glibc bits/socket.h): the generic head every socket address starts with; librdmacm takes
 * {@code struct sockaddr *} and reads the family to know which one it got.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Sockaddr
{
    /** AF_INET and AF_INET6 (glibc bits/socket.h), AF_IB (rdma_cma.h via linux/socket.h value 27). */
    public static final short AF_INET = 2;
    /** {@code AF_INET6} ({@code bits/socket.h}). */
    public static final short AF_INET6 = 10;
    /** {@code AF_IB} ({@code bits/socket.h}). */
    public static final short AF_IB = 27;

    /** Memory layout of {@code struct sockaddr} (glibc bits/socket.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U16.withName("sa_family"),
        bytes(14).withName("sa_data")).withName("sockaddr");

    /** Byte offset of {@code sa_family} in {@code struct sockaddr}. */
    public static final long SA_FAMILY_OFFSET = offset(LAYOUT, "sa_family");

    private Sockaddr()
    {
    }
}
