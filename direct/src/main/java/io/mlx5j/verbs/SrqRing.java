// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * An SRQ's raw queue as {@code mlx5dv_init_obj} reports it ({@code struct mlx5dv_srq}); scoped to the SRQ.
 *
 * @param srqn   SRQ number (CQEs of SRQ receives carry it in srqn_uidx)
 * libmlx5 (rdma-core v44 srq.c) may allocate more WQEs than {@code tail + 1}: the extra ones form its private
 * "wait queue", linked after the free list. mlx5dv does not report them, so the view covers only the free list.
 *
 * @param buf    WQEs 0..tail: {@code (tail + 1) * stride} bytes, each WQE starting with mlx5_wqe_srq_next_seg
 * @param stride bytes per WQE
 * @param head   first free WQE index of the free list at init time
 * @param tail   last WQE index of the free list at init time (the ring holds tail + 1 WQEs)
 * @param dbrec  the receive doorbell record: a big-endian WQE counter (4 bytes used, 8 reserved)
 *
 * <p>Thread model: an immutable record of the queue's native memory; the segments it holds may be used by the one
 * thread that posts to or polls that queue (see the package comment).
 */
public record SrqRing(int srqn, MemorySegment buf, int stride, int head, int tail, MemorySegment dbrec)
{
}
