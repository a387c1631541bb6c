package io.mlx5j.wqe;

/**
 * Remote address segment of RDMA and atomic WQEs ({@code struct mlx5_wqe_raddr_seg}, rdma-core v44 mlx5dv.h).
 * <pre>
 *        31                                                     0
 *       +-------------------------------------------------------+
 *  0x00 |                     raddr [63:32]                     |
 *       +-------------------------------------------------------+
 *  0x04 |                     raddr [31:0]                      |
 *       +-------------------------------------------------------+
 *  0x08 |                         rkey                          |
 *       +-------------------------------------------------------+
 *  0x0C |                       reserved                        |  written as 0
 *       +-------------------------------------------------------+
 * </pre>
 */
public final class RaddrSeg
{
    public static final int RADDR_OFFSET = 0;
    public static final int RKEY_OFFSET = 8;
    public static final int RESERVED_OFFSET = 12;
    public static final int LENGTH = 16;

    private RaddrSeg()
    {
    }
}
