package io.mlx5j.wqe;

/**
 * Data (scatter/gather pointer) segment, used in send and receive WQEs ({@code struct mlx5_wqe_data_seg},
 * rdma-core v44 mlx5dv.h; the encoding of {@code mlx5dv_set_data_seg}).
 * <pre>
 *        31                                                     0
 *       +-------------------------------------------------------+
 *  0x00 |                      byte_count                       |
 *       +-------------------------------------------------------+
 *  0x04 |                         lkey                          |
 *       +-------------------------------------------------------+
 *  0x08 |                      addr [63:32]                     |
 *       +-------------------------------------------------------+
 *  0x0C |                      addr [31:0]                      |
 *       +-------------------------------------------------------+
 * </pre>
 * In a receive WQE that uses fewer entries than its stride holds, the list ends with byte_count 0, lkey
 * {@link #MLX5_INVALID_LKEY} and addr 0 (as libmlx5's mlx5_post_recv does).
 */
public final class DataSeg
{
    public static final int BYTE_COUNT_OFFSET = 0;
    public static final int LKEY_OFFSET = 4;
    public static final int ADDR_OFFSET = 8;
    public static final int LENGTH = 16;

    /** lkey that terminates a receive scatter list (mlx5dv.h). */
    public static final int MLX5_INVALID_LKEY = 0x100;

    private DataSeg()
    {
    }
}
