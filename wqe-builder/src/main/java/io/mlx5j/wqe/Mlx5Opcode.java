// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * Send WQE opcodes, the low byte of {@code opmod_idx_opcode} (values from rdma-core v44 mlx5dv.h, enum
 * {@code MLX5_OPCODE_*}; checked against the header by the golden tests).
 *
 * <p>Thread model: constants only; any thread.
 */
public final class Mlx5Opcode
{
    /** {@code MLX5_OPCODE_NOP} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_NOP = 0x00;
    /** {@code MLX5_OPCODE_SEND_INVAL} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_SEND_INVAL = 0x01;
    /** {@code MLX5_OPCODE_RDMA_WRITE} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_RDMA_WRITE = 0x08;
    /** {@code MLX5_OPCODE_RDMA_WRITE_IMM} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_RDMA_WRITE_IMM = 0x09;
    /** {@code MLX5_OPCODE_SEND} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_SEND = 0x0a;
    /** {@code MLX5_OPCODE_SEND_IMM} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_SEND_IMM = 0x0b;
    /** {@code MLX5_OPCODE_TSO} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_TSO = 0x0e;
    /** {@code MLX5_OPCODE_RDMA_READ} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_RDMA_READ = 0x10;
    /** {@code MLX5_OPCODE_ATOMIC_CS} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_ATOMIC_CS = 0x11;
    /** {@code MLX5_OPCODE_ATOMIC_FA} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_ATOMIC_FA = 0x12;
    /** {@code MLX5_OPCODE_ATOMIC_MASKED_CS} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_ATOMIC_MASKED_CS = 0x14;
    /** {@code MLX5_OPCODE_ATOMIC_MASKED_FA} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_ATOMIC_MASKED_FA = 0x15;
    /** {@code MLX5_OPCODE_FMR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_FMR = 0x19;
    /** {@code MLX5_OPCODE_LOCAL_INVAL} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_LOCAL_INVAL = 0x1b;
    /** {@code MLX5_OPCODE_CONFIG_CMD} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_CONFIG_CMD = 0x1f;
    /** {@code MLX5_OPCODE_SET_PSV} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_SET_PSV = 0x20;
    /** {@code MLX5_OPCODE_UMR} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_UMR = 0x25;
    /** {@code MLX5_OPCODE_TAG_MATCHING} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_TAG_MATCHING = 0x28;
    /** {@code MLX5_OPCODE_FLOW_TBL_ACCESS} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_FLOW_TBL_ACCESS = 0x2c;
    /** {@code MLX5_OPCODE_MMO} from rdma-core's {@code infiniband/mlx5dv.h}. */
    public static final int MLX5_OPCODE_MMO = 0x2f;

    /**
     * opmod of the masked ("extended") atomics: bit 3 set, low bits = log2(operand bytes) - 2, so 8 for 32-bit and 9
     * for 64-bit operands (PRM "Atomic Operations"; the same encoding is UCX's UCT_IB_MLX5_OPMOD_EXT_ATOMIC).
     */
    public static final int MLX5_OPMOD_EXT_ATOMIC_32 = 0x8;
    /** The opmod of the masked 64-bit atomics (extended atomic, 8-byte operands); libmlx5's wqe.h. */
    public static final int MLX5_OPMOD_EXT_ATOMIC_64 = 0x9;

    private Mlx5Opcode()
    {
    }
}
