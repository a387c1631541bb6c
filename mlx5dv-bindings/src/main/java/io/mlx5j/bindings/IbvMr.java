package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct ibv_mr} (verbs.h, rdma-core 44): lkey/rkey are host order; length is size_t (64-bit). */
public final class IbvMr
{
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
