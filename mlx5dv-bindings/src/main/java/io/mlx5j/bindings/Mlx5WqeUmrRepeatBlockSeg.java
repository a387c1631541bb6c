package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct mlx5_wqe_umr_repeat_block_seg} (mlx5dv.h, rdma-core 44). The trailing flexible array
 * {@code entries[0]} adds no bytes but gives the struct the 8-byte alignment of its element.
 */
public final class Mlx5WqeUmrRepeatBlockSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE32.withName("byte_count"),
        BE32.withName("op"),
        BE32.withName("repeat_count"),
        BE16.withName("reserved"),
        BE16.withName("num_ent"),
        sequenceLayout(0, Mlx5WqeUmrRepeatEntSeg.LAYOUT).withName("entries")).withName("mlx5_wqe_umr_repeat_block_seg");

    private Mlx5WqeUmrRepeatBlockSeg()
    {
    }
}
