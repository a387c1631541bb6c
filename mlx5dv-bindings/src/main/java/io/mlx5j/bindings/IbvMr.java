// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_mr} (verbs.h, rdma-core 44): lkey/rkey are host order; length is size_t (64-bit). */
public final class IbvMr
{
    /** enum ibv_access_flags. */
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    public static final int IBV_ACCESS_MW_BIND = 1 << 4;
    public static final int IBV_ACCESS_ZERO_BASED = 1 << 5;
    public static final int IBV_ACCESS_ON_DEMAND = 1 << 6;
    public static final int IBV_ACCESS_HUGETLB = 1 << 7;
    public static final int IBV_ACCESS_RELAXED_ORDERING = 1 << 20;

    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("context"),
        C_POINTER.withName("pd"),
        C_POINTER.withName("addr"),
        C_LONG.withName("length"),
        U32.withName("handle"),
        U32.withName("lkey"),
        U32.withName("rkey"),
        pad(4)).withName("ibv_mr");

    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    public static final long ADDR_OFFSET = offset(LAYOUT, "addr");
    public static final long LENGTH_OFFSET = offset(LAYOUT, "length");
    public static final long HANDLE_OFFSET = offset(LAYOUT, "handle");
    public static final long LKEY_OFFSET = offset(LAYOUT, "lkey");
    public static final long RKEY_OFFSET = offset(LAYOUT, "rkey");

    private IbvMr()
    {
    }
}
