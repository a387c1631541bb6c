// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

/**
 * How a {@link SendDoorbell} hands a posted WQE to the NIC. Chosen once, when the QP is built. Immutable: any thread.
 */
public enum DoorbellMode
{
    /**
     * Copy every single-WQE post that fits the BlueFlame half ({@code ds * 16 <= bf.size}) through the BlueFlame
     * register; larger WQEs and multi-WQE batches fall back to the 8-byte doorbell, as in libmlx5. Requires a register
     * with a BlueFlame buffer ({@code bf.size > 0}).
     */
    BLUEFLAME,

    /** Always the 8-byte doorbell (first 8 bytes of the last ctrl segment); the NIC fetches the WQEs by DMA. */
    DOORBELL,

    /**
     * libmlx5's own choice with its default environment (rdma-core v44 providers/mlx5/qp.c post_send_db, with
     * MLX5_POST_SEND_PREFER_BF unset = 1 and MLX5_SHUT_UP_BF unset = 0): BlueFlame when exactly one WQE is posted,
     * the register has a BlueFlame buffer ({@code uuarn != 0}, reported as {@code bf.size > 0}), {@code ds > 1}
     * and {@code ds <= bf.size / 16}; otherwise the 8-byte doorbell.
     */
    AUTO
}
