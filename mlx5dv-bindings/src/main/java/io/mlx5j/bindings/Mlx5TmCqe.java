package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_tm_cqe} (mlx5dv.h, rdma-core 44): tag-matching view of the first CQE bytes. */
public final class Mlx5TmCqe
{
    public static final GroupLayout LAYOUT = structLayout(
        BE32.withName("success"),
        BE16.withName("hw_phase_cnt"),
        bytes(12).withName("rsvd0"),
        pad(2)).withName("mlx5_tm_cqe");

    private Mlx5TmCqe()
    {
    }
}
