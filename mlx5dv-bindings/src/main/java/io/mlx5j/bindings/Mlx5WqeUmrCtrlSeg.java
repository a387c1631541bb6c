package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_umr_ctrl_seg} (mlx5dv.h, rdma-core 44): UMR control (not used by mlx5j's data path). */
public final class Mlx5WqeUmrCtrlSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        U8.withName("flags"),
        bytes(3).withName("rsvd0"),
        BE16.withName("klm_octowords"),
        unionLayout(
            BE16.withName("translation_offset"),
            BE16.withName("bsf_octowords")).withName(Layouts.ANON + "0"),
        BE64.withName("mkey_mask"),
        bytes(32).withName("rsvd1")).withName("mlx5_wqe_umr_ctrl_seg");

    private Mlx5WqeUmrCtrlSeg()
    {
    }
}
