// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * Send WQE opcodes, the low byte of {@code opmod_idx_opcode} (values from rdma-core v44 mlx5dv.h, enum
 * {@code MLX5_OPCODE_*}; checked against the header by the golden tests).
 */
public final class Mlx5Opcode
{
    public static final int MLX5_OPCODE_NOP = 0x00;
    public static final int MLX5_OPCODE_SEND_INVAL = 0x01;
    public static final int MLX5_OPCODE_RDMA_WRITE = 0x08;
    public static final int MLX5_OPCODE_RDMA_WRITE_IMM = 0x09;
    public static final int MLX5_OPCODE_SEND = 0x0a;
    public static final int MLX5_OPCODE_SEND_IMM = 0x0b;
    public static final int MLX5_OPCODE_TSO = 0x0e;
    public static final int MLX5_OPCODE_RDMA_READ = 0x10;
    public static final int MLX5_OPCODE_ATOMIC_CS = 0x11;
    public static final int MLX5_OPCODE_ATOMIC_FA = 0x12;
    public static final int MLX5_OPCODE_ATOMIC_MASKED_CS = 0x14;
    public static final int MLX5_OPCODE_ATOMIC_MASKED_FA = 0x15;
    public static final int MLX5_OPCODE_FMR = 0x19;
    public static final int MLX5_OPCODE_LOCAL_INVAL = 0x1b;
    public static final int MLX5_OPCODE_CONFIG_CMD = 0x1f;
    public static final int MLX5_OPCODE_SET_PSV = 0x20;
    public static final int MLX5_OPCODE_UMR = 0x25;
    public static final int MLX5_OPCODE_TAG_MATCHING = 0x28;
    public static final int MLX5_OPCODE_FLOW_TBL_ACCESS = 0x2c;
    public static final int MLX5_OPCODE_MMO = 0x2f;

    /**
     * opmod of the masked ("extended") atomics: bit 3 set, low bits = log2(operand bytes) - 2, so 8 for 32-bit and 9
     * for 64-bit operands (PRM "Atomic Operations"; the same encoding is UCX's UCT_IB_MLX5_OPMOD_EXT_ATOMIC).
     */
    public static final int MLX5_OPMOD_EXT_ATOMIC_32 = 0x8;
    public static final int MLX5_OPMOD_EXT_ATOMIC_64 = 0x9;

    private Mlx5Opcode()
    {
    }
}
