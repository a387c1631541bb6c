package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_atomic_seg} (mlx5dv.h, rdma-core 44): CAS swap/compare or FAA add. */
public final class Mlx5WqeAtomicSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE64.withName("swap_add"),
        BE64.withName("compare")).withName("mlx5_wqe_atomic_seg");

    public static final long SWAP_ADD_OFFSET = offset(LAYOUT, "swap_add");
    public static final long COMPARE_OFFSET = offset(LAYOUT, "compare");

    private Mlx5WqeAtomicSeg()
    {
    }
}
