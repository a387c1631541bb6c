// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct sockaddr_in} (glibc netinet/in.h): port and address in network order, as {@code htons} and
 * {@code inet_pton} produce them.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class SockaddrIn
{
    /** Memory layout of {@code struct sockaddr_in} (glibc netinet/in.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U16.withName("sin_family"),
        BE16.withName("sin_port"),
        structLayout(BE32.withName("s_addr")).withName("sin_addr"),
        bytes(8).withName("sin_zero")).withName("sockaddr_in");

    /** Byte offset of {@code sin_family} in {@code struct sockaddr_in}. */
    public static final long SIN_FAMILY_OFFSET = offset(LAYOUT, "sin_family");
    /** Byte offset of {@code sin_port} in {@code struct sockaddr_in}. */
    public static final long SIN_PORT_OFFSET = offset(LAYOUT, "sin_port");
    /** Byte offset of {@code sin_addr.s_addr} in {@code struct sockaddr_in}. */
    public static final long SIN_ADDR_OFFSET = offset(LAYOUT, "sin_addr", "s_addr");

    private SockaddrIn()
    {
    }
}
