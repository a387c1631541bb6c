// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct rdma_addr} (rdma/rdma_cma.h, rdma-core 44): source and destination socket addresses (anonymous unions
 * of sockaddr / sockaddr_in / sockaddr_in6 / sockaddr_storage) and the GIDs they resolved to.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaAddr
{
    /** Memory layout of {@code struct rdma_addr} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        unionLayout(
            Sockaddr.LAYOUT.withName("src_addr"),
            SockaddrIn.LAYOUT.withName("src_sin"),
            SockaddrIn6.LAYOUT.withName("src_sin6"),
            SockaddrStorage.LAYOUT.withName("src_storage")).withName(Layouts.ANON + "src"),
        unionLayout(
            Sockaddr.LAYOUT.withName("dst_addr"),
            SockaddrIn.LAYOUT.withName("dst_sin"),
            SockaddrIn6.LAYOUT.withName("dst_sin6"),
            SockaddrStorage.LAYOUT.withName("dst_storage")).withName(Layouts.ANON + "dst"),
        unionLayout(
            RdmaIbAddr.LAYOUT.withName("ibaddr")).withName("addr")).withName("rdma_addr");

    /** Byte offset of {@code src_addr} in {@code struct rdma_addr}. */
    public static final long SRC_ADDR_OFFSET = offset(LAYOUT, "src_addr");
    /** Byte offset of {@code dst_addr} in {@code struct rdma_addr}. */
    public static final long DST_ADDR_OFFSET = offset(LAYOUT, "dst_addr");
    /** Size of the {@code struct sockaddr_storage} members of {@code struct rdma_addr}. */
    public static final long SOCKADDR_SIZE = SockaddrStorage.LAYOUT.byteSize();
    /** Byte offset of {@code addr.ibaddr} in {@code struct rdma_addr}. */
    public static final long IBADDR_OFFSET = offset(LAYOUT, "addr", "ibaddr");

    private RdmaAddr()
    {
    }
}
