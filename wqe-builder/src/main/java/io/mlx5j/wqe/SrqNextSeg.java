package io.mlx5j.wqe;

/**
 * First 16 bytes of every SRQ receive WQE ({@code struct mlx5_wqe_srq_next_seg}, rdma-core v44 mlx5dv.h): links the
 * free list of SRQ WQEs, which the device follows when it consumes one.
 * <pre>
 *        31            24 23           16 15                           0
 *       +-------------------------------+-----------------------------+
 *  0x00 |           rsvd0               |        next_wqe_index       |
 *       +---------------+---------------+-----------------------------+
 *  0x04 |   signature   |                  rsvd1 (11 bytes) ...       |
 *       +---------------+---------------------------------------------+
 * </pre>
 */
public final class SrqNextSeg
{
    public static final int RSVD0_OFFSET = 0;
    public static final int NEXT_WQE_INDEX_OFFSET = 2;
    public static final int SIGNATURE_OFFSET = 4;
    public static final int RSVD1_OFFSET = 5;
    public static final int LENGTH = 16;

    private SrqNextSeg()
    {
    }
}
