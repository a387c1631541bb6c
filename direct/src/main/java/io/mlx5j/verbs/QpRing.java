// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A QP's raw queues as {@code mlx5dv_init_obj} reports them ({@code struct mlx5dv_qp}); every segment is scoped to
 * the QP and fails once it is closed.
 *
 * @param qpn       QP number (the ctrl segment's qpn_ds carries it)
 * @param sq        send ring, {@code sqWqeCnt * sqStride} bytes; WQEBB i at {@code (i & (sqWqeCnt - 1)) * 64}
 * @param sqWqeCnt  send WQEBBs, a power of two
 * @param sqStride  bytes per WQEBB (64)
 * @param rq        receive ring, {@code rqWqeCnt * rqStride} bytes; empty on an SRQ-attached QP
 * @param rqWqeCnt  receive WQEs, a power of two (0 without an RQ)
 * @param rqStride  bytes per receive WQE (16 * max receive SGEs, rounded to a power of two)
 * @param dbrec     8 bytes: [MLX5_RCV_DBR] receive counter, [MLX5_SND_DBR] send counter, big-endian
 * @param bfReg     the BlueFlame register: {@code max(8, 2 * bfSize)} bytes, two halves used alternately
 * @param bfSize    bytes per BlueFlame half; 0 when the register only takes 8-byte doorbells
 * @param uarMmapOffset {@code mlx5dv_qp.uar_mmap_offset}: the mmap offset of the UAR page holding {@code bfReg}
 *                  (rdma-core v44 providers/mlx5/mlx5.c get_uar_mmap_offset: command and page index times the page
 *                  size), or -1 when libmlx5 did not report it ({@code MLX5DV_QP_MASK_UAR_MMAP_OFFSET} not set on
 *                  return)
 *
 * <p>Thread model: an immutable record of the queue's native memory; the segments it holds may be used by the one
 * thread that posts to or polls that queue (see the package comment).
 */
public record QpRing(
    int qpn,
    MemorySegment sq,
    int sqWqeCnt,
    int sqStride,
    MemorySegment rq,
    int rqWqeCnt,
    int rqStride,
    MemorySegment dbrec,
    MemorySegment bfReg,
    int bfSize,
    long uarMmapOffset)
{
}
