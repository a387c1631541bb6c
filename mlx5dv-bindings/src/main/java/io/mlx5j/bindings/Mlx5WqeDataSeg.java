package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/** {@code struct mlx5_wqe_data_seg} (mlx5dv.h, rdma-core 44): one scatter/gather entry, 16 bytes. */
public final class Mlx5WqeDataSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE32.withName("byte_count"),
        BE32.withName("lkey"),
        BE64.withName("addr")).withName("mlx5_wqe_data_seg");

    public static final long BYTE_COUNT_OFFSET = offset(LAYOUT, "byte_count");
    public static final long LKEY_OFFSET = offset(LAYOUT, "lkey");
    public static final long ADDR_OFFSET = offset(LAYOUT, "addr");

    private Mlx5WqeDataSeg()
    {
    }
}
