// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * Work completion status with the numbering of libibverbs' {@code enum ibv_wc_status} (verbs.h): {@link #code()}
 * equals the C value, and {@link #ordinal()} too, because the constants are declared in that order without gaps.
 */
public enum WcStatus
{
    SUCCESS,
    LOC_LEN_ERR,
    LOC_QP_OP_ERR,
    LOC_EEC_OP_ERR,
    LOC_PROT_ERR,
    WR_FLUSH_ERR,
    MW_BIND_ERR,
    BAD_RESP_ERR,
    LOC_ACCESS_ERR,
    REM_INV_REQ_ERR,
    REM_ACCESS_ERR,
    REM_OP_ERR,
    RETRY_EXC_ERR,
    RNR_RETRY_EXC_ERR,
    LOC_RDD_VIOL_ERR,
    REM_INV_RD_REQ_ERR,
    REM_ABORT_ERR,
    INV_EECN_ERR,
    INV_EEC_STATE_ERR,
    FATAL_ERR,
    RESP_TIMEOUT_ERR,
    GENERAL_ERR,
    TM_ERR,
    TM_RNDV_INCOMPLETE;

    /** The ibv_wc_status value. */
    public int code()
    {
        return ordinal();
    }

    /**
     * Status of an error CQE's syndrome, the same mapping as libmlx5's mlx5_handle_error_cqe (rdma-core v44
     * providers/mlx5/cq.c): every unlisted syndrome is GENERAL_ERR.
     */
    public static WcStatus fromSyndrome(final int syndrome)
    {
        return switch (syndrome & 0xff)
        {
            case Cqe64.MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR -> LOC_LEN_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR -> LOC_QP_OP_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_LOCAL_PROT_ERR -> LOC_PROT_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_WR_FLUSH_ERR -> WR_FLUSH_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_MW_BIND_ERR -> MW_BIND_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_BAD_RESP_ERR -> BAD_RESP_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR -> LOC_ACCESS_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR -> REM_INV_REQ_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR -> REM_ACCESS_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_REMOTE_OP_ERR -> REM_OP_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR -> RETRY_EXC_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR -> RNR_RETRY_EXC_ERR;
            case Cqe64.MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR -> REM_ABORT_ERR;
            default -> GENERAL_ERR;
        };
    }
}
