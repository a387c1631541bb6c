package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_umr_klm_seg} (mlx5dv.h, rdma-core 44). */
public final class Mlx5WqeUmrKlmSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE32.withName("byte_count"),
        BE32.withName("mkey"),
        BE64.withName("address")).withName("mlx5_wqe_umr_klm_seg");

    private Mlx5WqeUmrKlmSeg()
    {
    }
}
