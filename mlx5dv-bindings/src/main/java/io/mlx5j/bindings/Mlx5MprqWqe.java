package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_mprq_wqe} (mlx5dv.h, rdma-core 44): a striding-RQ WQE, next segment then one data segment. */
public final class Mlx5MprqWqe
{
    public static final GroupLayout LAYOUT = structLayout(
        Mlx5WqeSrqNextSeg.LAYOUT.withName("nseg"),
        Mlx5WqeDataSeg.LAYOUT.withName("dseg")).withName("mlx5_mprq_wqe");

    public static final long NSEG_OFFSET = offset(LAYOUT, "nseg");
    public static final long DSEG_OFFSET = offset(LAYOUT, "dseg");

    private Mlx5MprqWqe()
    {
    }
}
