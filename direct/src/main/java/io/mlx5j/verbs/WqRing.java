// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A receive WQ's raw ring as {@code mlx5dv_init_obj} with MLX5DV_OBJ_RWQ reports it ({@code struct mlx5dv_rwq});
 * every segment is scoped to the WQ and fails once it is closed.
 *
 * @param wqn    the WQ number
 * @param buf    the WQE ring, {@code wqeCnt * stride} bytes
 * @param wqeCnt WQEs, a power of two
 * @param stride bytes per WQE (a power of two; a striding WQ's WQE is a 16-byte next segment and data segments)
 * @param dbrec  the doorbell record (8 bytes; word 0, MLX5_RCV_DBR, is the receive counter, big-endian: libmlx5's
 *               recv_db)
 *
 * <p>Thread model: an immutable record of the queue's native memory; the segments it holds may be used by the one
 * thread that posts to or polls that queue (see the package comment).
 */
public record WqRing(int wqn, MemorySegment buf, int wqeCnt, int stride, MemorySegment dbrec)
{
}
