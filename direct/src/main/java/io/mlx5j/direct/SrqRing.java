package io.mlx5j.direct;

import java.lang.foreign.MemorySegment;

/**
 * An SRQ's raw queue as {@code mlx5dv_init_obj} reports it ({@code struct mlx5dv_srq}); scoped to the SRQ.
 *
 * @param srqn   SRQ number (CQEs of SRQ receives carry it in srqn_uidx)
 * @param buf    the WQE ring: {@code (tail + 1) * stride} bytes, each WQE starting with mlx5_wqe_srq_next_seg
 * @param stride bytes per WQE
 * @param head   first free WQE index of the free list at init time
 * @param tail   last WQE index of the free list at init time (the ring holds tail + 1 WQEs)
 * @param dbrec  the receive doorbell record: a big-endian WQE counter (4 bytes used, 8 reserved)
 */
public record SrqRing(int srqn, MemorySegment buf, int stride, int head, int tail, MemorySegment dbrec)
{
}
