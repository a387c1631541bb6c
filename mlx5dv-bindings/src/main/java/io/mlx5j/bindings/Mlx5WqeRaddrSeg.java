package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_raddr_seg} (mlx5dv.h, rdma-core 44): remote address of RDMA and atomic WQEs. */
public final class Mlx5WqeRaddrSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE64.withName("raddr"),
        BE32.withName("rkey"),
        BE32.withName("reserved")).withName("mlx5_wqe_raddr_seg");

    public static final long RADDR_OFFSET = offset(LAYOUT, "raddr");
    public static final long RKEY_OFFSET = offset(LAYOUT, "rkey");
    public static final long RESERVED_OFFSET = offset(LAYOUT, "reserved");

    private Mlx5WqeRaddrSeg()
    {
    }
}
