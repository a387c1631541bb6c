package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_srq_next_seg} (mlx5dv.h, rdma-core 44): first 16 bytes of every SRQ WQE (free-list link). */
public final class Mlx5WqeSrqNextSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        bytes(2).withName("rsvd0"),
        BE16.withName("next_wqe_index"),
        U8.withName("signature"),
        bytes(11).withName("rsvd1")).withName("mlx5_wqe_srq_next_seg");

    public static final long NEXT_WQE_INDEX_OFFSET = offset(LAYOUT, "next_wqe_index");
    public static final long SIGNATURE_OFFSET = offset(LAYOUT, "signature");

    private Mlx5WqeSrqNextSeg()
    {
    }
}
