// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.wqe.Mlx5Opcode;

/**
 * The work every post benchmark does, whatever the stack: one JMH operation is one WQE, and one invocation posts
 * {@link #BATCH} WQEs of which only the last is signaled (selective signaling, as throughput applications post),
 * then the {@link SyntheticCompleter} writes that WQE's CQE and the stack's own poller consumes it. So each
 * reported ns/WQE also carries 1/64 of one completion (write + poll), the same for every variant.
 * <p>
 * WQE sizes (RC, rdma-core v44 providers/mlx5/qp.c): RDMA WRITE = ctrl 16 + raddr 16 + data 16 = 48 bytes, one
 * WQEBB; inline SEND of 16 bytes = ctrl 16 + (4 + 16 rounded to 32) = 48 bytes, one WQEBB; inline SEND of 64 bytes =
 * ctrl 16 + (4 + 64 rounded to 80) = 96 bytes, two WQEBBs.
 */
final class Workload
{
    /** WQEs per benchmark invocation (= {@code @OperationsPerInvocation}); the last one is signaled. */
    static final int BATCH = 64;
    /** WQEs per doorbell in the batched variant. */
    static final int DOORBELL_BATCH = 8;

    /** Bytes of the RDMA WRITE (the engine is off: only the descriptor matters). */
    static final int WRITE_BYTES = 4096;
    /** Local source of the RDMA WRITE: offset in the registered memory. */
    static final long WRITE_SRC = 0;
    /** Remote target of the RDMA WRITE: offset in the registered memory (the twin QP's side). */
    static final long WRITE_DST = 16 * 1024;
    /** Inline payloads start here in the registered memory. */
    static final long INLINE_SRC = 32 * 1024;

    static final long SIGNALED_WR_ID = 0x5167_0000_0000_0001L;
    static final long UNSIGNALED_WR_ID = 0x0_0000_0000_0002L;

    static final int WRITE_WQEBB = 1;
    static final int INLINE16_WQEBB = 1;
    static final int INLINE64_WQEBB = 2;

    static final int OPCODE_WRITE = Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE;
    static final int OPCODE_SEND = Mlx5Opcode.MLX5_OPCODE_SEND;

    private Workload()
    {
    }

    /** Fails the benchmark loudly when a poll did not return the one completion this batch produced. */
    static IllegalStateException badCompletion(final String stack, final int polled, final long wrId, final int status)
    {
        return new IllegalStateException(stack + ": expected 1 successful completion with wr_id 0x"
            + Long.toHexString(SIGNALED_WR_ID) + ", polled " + polled + " (wr_id 0x" + Long.toHexString(wrId)
            + ", status " + status + "): the synthetic completer and the ring are out of step");
    }
}
