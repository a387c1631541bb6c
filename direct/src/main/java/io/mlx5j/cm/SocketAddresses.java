// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.Sockaddr;
import io.mlx5j.bindings.SockaddrIn;
import io.mlx5j.bindings.SockaddrIn6;
import io.mlx5j.bindings.SockaddrStorage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import static io.mlx5j.bindings.CTypes.BE16;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;

/** InetSocketAddress to and from {@code struct sockaddr_in} / {@code sockaddr_in6}, as librdmacm takes them. */
final class SocketAddresses
{
    private SocketAddresses()
    {
    }

    /** A zeroed sockaddr_storage holding {@code address} (resolved: librdmacm does no name lookup here). */
    static MemorySegment write(final Arena arena, final InetSocketAddress address)
    {
        if (address.isUnresolved())
        {
            throw new IllegalArgumentException(address + " is unresolved; give an IP address");
        }
        final MemorySegment sa = arena.allocate(SockaddrStorage.LAYOUT);
        final InetAddress ip = address.getAddress();
        if (ip instanceof Inet4Address)
        {
            sa.set(U16, SockaddrIn.SIN_FAMILY_OFFSET, Sockaddr.AF_INET);
            sa.set(BE16, SockaddrIn.SIN_PORT_OFFSET, (short) address.getPort());
            MemorySegment.copy(MemorySegment.ofArray(ip.getAddress()), 0, sa, SockaddrIn.SIN_ADDR_OFFSET, 4);
        }
        else
        {
            sa.set(U16, SockaddrIn6.SIN6_FAMILY_OFFSET, Sockaddr.AF_INET6);
            sa.set(BE16, SockaddrIn6.SIN6_PORT_OFFSET, (short) address.getPort());
            MemorySegment.copy(MemorySegment.ofArray(ip.getAddress()), 0, sa, SockaddrIn6.SIN6_ADDR_OFFSET, 16);
            sa.set(U32, SockaddrIn6.SIN6_SCOPE_ID_OFFSET, ((Inet6Address) ip).getScopeId());
        }
        return sa;
    }

    /** The address at {@code offset}, or null for an unset (AF_UNSPEC) or non-IP one (AF_IB). */
    static InetSocketAddress read(final MemorySegment segment, final long offset)
    {
        final int family = segment.get(U16, offset + Sockaddr.SA_FAMILY_OFFSET);
        try
        {
            if (family == Sockaddr.AF_INET)
            {
                final byte[] ip = new byte[4];
                MemorySegment.copy(segment, offset + SockaddrIn.SIN_ADDR_OFFSET, MemorySegment.ofArray(ip), 0, 4);
                final int port = segment.get(BE16, offset + SockaddrIn.SIN_PORT_OFFSET) & 0xffff;
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            if (family == Sockaddr.AF_INET6)
            {
                final byte[] ip = new byte[16];
                MemorySegment.copy(segment, offset + SockaddrIn6.SIN6_ADDR_OFFSET, MemorySegment.ofArray(ip), 0, 16);
                final int port = segment.get(BE16, offset + SockaddrIn6.SIN6_PORT_OFFSET) & 0xffff;
                final int scope = segment.get(U32, offset + SockaddrIn6.SIN6_SCOPE_ID_OFFSET);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope), port);
            }
            return null;
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("unreadable address bytes", ex);   // only for wrong lengths
        }
    }
}
