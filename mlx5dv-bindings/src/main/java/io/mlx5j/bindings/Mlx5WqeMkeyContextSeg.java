package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_mkey_context_seg} (mlx5dv.h, rdma-core 44): UMR mkey context (not used by mlx5j). */
public final class Mlx5WqeMkeyContextSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        U8.withName("free"),
        U8.withName("reserved1"),
        U8.withName("access_flags"),
        U8.withName("sf"),
        BE32.withName("qpn_mkey"),
        BE32.withName("reserved2"),
        BE32.withName("flags_pd"),
        BE64.withName("start_addr"),
        BE64.withName("len"),
        BE32.withName("bsf_octword_size"),
        sequenceLayout(4, BE32).withName("reserved3"),
        BE32.withName("translations_octword_size"),
        bytes(3).withName("reserved4"),
        U8.withName("log_page_size"),
        BE32.withName("reserved"),
        sequenceLayout(0, Mlx5WqeUmrInlineSeg.LAYOUT).withName("inseg"))
        .withName("mlx5_wqe_mkey_context_seg");

    private Mlx5WqeMkeyContextSeg()
    {
    }
}
