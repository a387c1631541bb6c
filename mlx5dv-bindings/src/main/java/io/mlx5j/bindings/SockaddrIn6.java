// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct sockaddr_in6} (glibc netinet/in.h): port, flow info and the 16 address bytes in network order.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class SockaddrIn6
{
    /** Memory layout of {@code struct sockaddr_in6} (glibc netinet/in.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U16.withName("sin6_family"),
        BE16.withName("sin6_port"),
        BE32.withName("sin6_flowinfo"),
        structLayout(
            unionLayout(
                bytes(16).withName("__u6_addr8"),
                sequenceLayout(8, U16).withName("__u6_addr16"),
                sequenceLayout(4, U32).withName("__u6_addr32")).withName("__in6_u")).withName("sin6_addr"),
        U32.withName("sin6_scope_id")).withName("sockaddr_in6");

    /** Byte offset of {@code sin6_family} in {@code struct sockaddr_in6}. */
    public static final long SIN6_FAMILY_OFFSET = offset(LAYOUT, "sin6_family");
    /** Byte offset of {@code sin6_port} in {@code struct sockaddr_in6}. */
    public static final long SIN6_PORT_OFFSET = offset(LAYOUT, "sin6_port");
    /** Byte offset of {@code sin6_flowinfo} in {@code struct sockaddr_in6}. */
    public static final long SIN6_FLOWINFO_OFFSET = offset(LAYOUT, "sin6_flowinfo");
    /** Byte offset of {@code sin6_addr} in {@code struct sockaddr_in6}. */
    public static final long SIN6_ADDR_OFFSET = offset(LAYOUT, "sin6_addr");
    /** Byte offset of {@code sin6_scope_id} in {@code struct sockaddr_in6}. */
    public static final long SIN6_SCOPE_ID_OFFSET = offset(LAYOUT, "sin6_scope_id");

    private SockaddrIn6()
    {
    }
}
