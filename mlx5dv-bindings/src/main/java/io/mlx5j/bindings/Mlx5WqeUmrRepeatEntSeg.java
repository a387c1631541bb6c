package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_umr_repeat_ent_seg} (mlx5dv.h, rdma-core 44). */
public final class Mlx5WqeUmrRepeatEntSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE16.withName("stride"),
        BE16.withName("byte_count"),
        BE32.withName("memkey"),
        BE64.withName("va")).withName("mlx5_wqe_umr_repeat_ent_seg");

    private Mlx5WqeUmrRepeatEntSeg()
    {
    }
}
