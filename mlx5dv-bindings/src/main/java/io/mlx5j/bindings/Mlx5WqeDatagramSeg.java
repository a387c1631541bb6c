package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_datagram_seg} (mlx5dv.h, rdma-core 44): wraps one {@link Mlx5WqeAv}. */
public final class Mlx5WqeDatagramSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        Mlx5WqeAv.LAYOUT.withName("av")).withName("mlx5_wqe_datagram_seg");

    public static final long AV_OFFSET = offset(LAYOUT, "av");

    private Mlx5WqeDatagramSeg()
    {
    }
}
