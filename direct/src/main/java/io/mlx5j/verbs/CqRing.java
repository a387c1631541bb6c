// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A CQ's raw ring as {@code mlx5dv_init_obj} reports it ({@code struct mlx5dv_cq}); every segment is scoped to the
 * CQ and fails once it is closed.
 *
 * @param cqn     CQ number (sent with the arm doorbell)
 * @param buf     the CQE ring, {@code cqeCnt * cqeSize} bytes
 * @param cqeCnt  number of CQEs, a power of two
 * @param cqeSize 64 or 128; with 128 the mlx5_cqe64 is the second half of each entry
 * @param dbrec   8 bytes: [MLX5_CQ_SET_CI] consumer index, [MLX5_CQ_ARM_DB] arm word, both big-endian
 * @param cqUar   the UAR page prefix up to and including the 8-byte arm doorbell at MLX5_CQ_DOORBELL (0x20)
 *
 * <p>Thread model: an immutable record of the queue's native memory; the segments it holds may be used by the one
 * thread that posts to or polls that queue (see the package comment).
 */
public record CqRing(int cqn, MemorySegment buf, int cqeCnt, int cqeSize, MemorySegment dbrec, MemorySegment cqUar)
{
}
