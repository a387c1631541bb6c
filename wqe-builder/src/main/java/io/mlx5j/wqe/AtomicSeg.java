package io.mlx5j.wqe;

/**
 * Atomic segments, placed after the {@link RaddrSeg}. Sources: {@code struct mlx5_wqe_atomic_seg} (mlx5dv.h) for
 * CAS/FAA, {@code struct mlx5_wqe_masked_atomic_seg} (rdma-core v44 providers/mlx5/wqe.h) for the masked 64-bit
 * compare-and-swap; the 32-bit and fetch-add masked forms follow the PRM "Atomic Operations" layouts (UCX
 * src/uct/ib/mlx5/ib_mlx5.h has the same shapes). libmlx5 v44 itself posts only CAS and FAA.
 * <pre>
 * CAS / FAA (16 bytes, opcode ATOMIC_CS / ATOMIC_FA, opmod 0):
 *  0x00 | swap_add [63:0] (swap value for CAS, add value for FAA)  |
 *  0x08 | compare  [63:0] (compare value for CAS, 0 for FAA)       |
 *
 * Masked CAS 64-bit (32 bytes, opcode ATOMIC_MASKED_CS, opmod 9):
 *  0x00 | swap_add | 0x08 | compare | 0x10 | swap_add_mask | 0x18 | compare_mask |   (each 64 bits)
 *
 * Masked FAA 64-bit (16 bytes, opcode ATOMIC_MASKED_FA, opmod 9):
 *  0x00 | add [63:0] | 0x08 | field_boundary [63:0] |
 *
 * Masked CAS 32-bit (16 bytes, opcode ATOMIC_MASKED_CS, opmod 8):
 *  0x00 | swap | 0x04 | compare | 0x08 | swap_mask | 0x0C | compare_mask |       (each 32 bits)
 *
 * Masked FAA 32-bit (16 bytes, opcode ATOMIC_MASKED_FA, opmod 8):
 *  0x00 | add | 0x04 | field_boundary | 0x08 | reserved (0, 8 bytes) |
 * </pre>
 * All values big-endian. field_boundary marks carry-stop bits: a 1 bit ends the add's carry chain there.
 */
public final class AtomicSeg
{
    public static final int SWAP_ADD_OFFSET = 0;
    public static final int COMPARE_OFFSET = 8;
    public static final int LENGTH = 16;

    public static final int MASKED64_SWAP_ADD_OFFSET = 0;
    public static final int MASKED64_COMPARE_OFFSET = 8;
    public static final int MASKED64_SWAP_ADD_MASK_OFFSET = 16;
    public static final int MASKED64_COMPARE_MASK_OFFSET = 24;
    public static final int MASKED64_CS_LENGTH = 32;
    public static final int MASKED64_FA_ADD_OFFSET = 0;
    public static final int MASKED64_FA_FIELD_BOUNDARY_OFFSET = 8;
    public static final int MASKED64_FA_LENGTH = 16;

    public static final int MASKED32_SWAP_OFFSET = 0;
    public static final int MASKED32_COMPARE_OFFSET = 4;
    public static final int MASKED32_SWAP_MASK_OFFSET = 8;
    public static final int MASKED32_COMPARE_MASK_OFFSET = 12;
    public static final int MASKED32_FA_ADD_OFFSET = 0;
    public static final int MASKED32_FA_FIELD_BOUNDARY_OFFSET = 4;
    /** 8 reserved bytes after the 32-bit masked FAA operands, written as 0. */
    public static final int MASKED32_FA_RESERVED_OFFSET = 8;
    public static final int MASKED32_LENGTH = 16;

    private AtomicSeg()
    {
    }
}
