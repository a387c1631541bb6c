package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_tm_seg} (mlx5dv.h, rdma-core 44): tag-matching segment (not used by mlx5j's data path). */
public final class Mlx5WqeTmSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        U8.withName("opcode"),
        U8.withName("flags"),
        BE16.withName("index"),
        bytes(2).withName("rsvd0"),
        BE16.withName("sw_cnt"),
        bytes(8).withName("rsvd1"),
        BE64.withName("append_tag"),
        BE64.withName("append_mask")).withName("mlx5_wqe_tm_seg");

    private Mlx5WqeTmSeg()
    {
    }
}
