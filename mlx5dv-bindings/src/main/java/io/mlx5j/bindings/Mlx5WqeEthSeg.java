package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_eth_seg} (mlx5dv.h, rdma-core 44): Ethernet segment of raw-packet QPs. */
public final class Mlx5WqeEthSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE32.withName("rsvd0"),
        U8.withName("cs_flags"),
        U8.withName("rsvd1"),
        BE16.withName("mss"),
        BE32.withName("rsvd2"),
        BE16.withName("inline_hdr_sz"),
        bytes(2).withName("inline_hdr_start"),
        bytes(16).withName("inline_hdr")).withName("mlx5_wqe_eth_seg");

    public static final long CS_FLAGS_OFFSET = offset(LAYOUT, "cs_flags");
    public static final long MSS_OFFSET = offset(LAYOUT, "mss");
    public static final long INLINE_HDR_SZ_OFFSET = offset(LAYOUT, "inline_hdr_sz");
    public static final long INLINE_HDR_START_OFFSET = offset(LAYOUT, "inline_hdr_start");
    public static final long INLINE_HDR_OFFSET = offset(LAYOUT, "inline_hdr");

    private Mlx5WqeEthSeg()
    {
    }
}
