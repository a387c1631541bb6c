package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code union mlx5_wqe_umr_inline_seg} (mlx5dv.h, rdma-core 44): one KLM entry of a UMR (not used by mlx5j). */
public final class Mlx5WqeUmrInlineSeg
{
    public static final GroupLayout LAYOUT = unionLayout(
        Mlx5WqeUmrKlmSeg.LAYOUT.withName("klm")).withName("mlx5_wqe_umr_inline_seg");

    private Mlx5WqeUmrInlineSeg()
    {
    }
}
