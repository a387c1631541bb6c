// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_mr} (verbs.h, rdma-core 44): lkey/rkey are host order; length is size_t (64-bit).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvMr
{
    /** enum ibv_access_flags. */
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    /** {@code IBV_ACCESS_MW_BIND} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_MW_BIND = 1 << 4;
    /** {@code IBV_ACCESS_ZERO_BASED} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_ZERO_BASED = 1 << 5;
    /** {@code IBV_ACCESS_ON_DEMAND} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_ON_DEMAND = 1 << 6;
    /** {@code IBV_ACCESS_HUGETLB} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_HUGETLB = 1 << 7;
    /** {@code IBV_ACCESS_RELAXED_ORDERING} ({@code infiniband/verbs.h}). */
    public static final int IBV_ACCESS_RELAXED_ORDERING = 1 << 20;

    /** Memory layout of {@code struct ibv_mr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("pd"),
        C_POINTER.withName("addr"),
        C_LONG.withName("length"),
        U32.withName("handle"),
        U32.withName("lkey"),
        U32.withName("rkey"),
        pad(4)).withName("ibv_mr");

    /** Byte offset of {@code context} in {@code struct ibv_mr}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code pd} in {@code struct ibv_mr}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code addr} in {@code struct ibv_mr}. */
    public static final long ADDR_OFFSET = offset(LAYOUT, "addr");
    /** Byte offset of {@code length} in {@code struct ibv_mr}. */
    public static final long LENGTH_OFFSET = offset(LAYOUT, "length");
    /** Byte offset of {@code handle} in {@code struct ibv_mr}. */
    public static final long HANDLE_OFFSET = offset(LAYOUT, "handle");
    /** Byte offset of {@code lkey} in {@code struct ibv_mr}. */
    public static final long LKEY_OFFSET = offset(LAYOUT, "lkey");
    /** Byte offset of {@code rkey} in {@code struct ibv_mr}. */
    public static final long RKEY_OFFSET = offset(LAYOUT, "rkey");

    private IbvMr()
    {
    }
}
