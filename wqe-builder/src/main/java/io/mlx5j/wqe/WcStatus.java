// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

/**
 * Work completion status with the numbering of libibverbs' {@code enum ibv_wc_status} (verbs.h): {@link #code()}
 * equals the C value, and {@link #ordinal()} too, because the constants are declared in that order without gaps.
 *
 * <p>Thread model: immutable; any thread.
 */
public enum WcStatus
{
    /** {@code IBV_WC_SUCCESS} in {@code enum ibv_wc_status} (verbs.h). */
    SUCCESS,
    /** {@code IBV_WC_LOC_LEN_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    LOC_LEN_ERR,
    /** {@code IBV_WC_LOC_QP_OP_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    LOC_QP_OP_ERR,
    /** {@code IBV_WC_LOC_EEC_OP_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    LOC_EEC_OP_ERR,
    /** {@code IBV_WC_LOC_PROT_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    LOC_PROT_ERR,
    /** {@code IBV_WC_WR_FLUSH_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    WR_FLUSH_ERR,
    /** {@code IBV_WC_MW_BIND_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    MW_BIND_ERR,
    /** {@code IBV_WC_BAD_RESP_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    BAD_RESP_ERR,
    /** {@code IBV_WC_LOC_ACCESS_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    LOC_ACCESS_ERR,
    /** {@code IBV_WC_REM_INV_REQ_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    REM_INV_REQ_ERR,
    /** {@code IBV_WC_REM_ACCESS_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    REM_ACCESS_ERR,
    /** {@code IBV_WC_REM_OP_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    REM_OP_ERR,
    /** {@code IBV_WC_RETRY_EXC_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    RETRY_EXC_ERR,
    /** {@code IBV_WC_RETRY_EXC_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    RNR_RETRY_EXC_ERR,
    /** {@code IBV_WC_LOC_RDD_VIOL_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    LOC_RDD_VIOL_ERR,
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    REM_INV_RD_REQ_ERR,
    /** {@code IBV_WC_REM_ABORT_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    REM_ABORT_ERR,
    /** {@code IBV_WC_INV_EECN_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    INV_EECN_ERR,
    /** {@code IBV_WC_INV_EEC_STATE_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    INV_EEC_STATE_ERR,
    /** {@code IBV_WC_FATAL_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    FATAL_ERR,
    /** {@code IBV_WC_RESP_TIMEOUT_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    RESP_TIMEOUT_ERR,
    /** {@code IBV_WC_GENERAL_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    GENERAL_ERR,
    /** {@code IBV_WC_TM_ERR} in {@code enum ibv_wc_status} (verbs.h). */
    TM_ERR,
    /** {@code IBV_WC_TM_RNDV_INCOMPLETE} in {@code enum ibv_wc_status} (verbs.h). */
    TM_RNDV_INCOMPLETE;

    /** {@return the ibv_wc_status value} */
    public int code()
    {
        return ordinal();
    }

    /**
     * Status of an error CQE's syndrome, the same mapping as libmlx5's mlx5_handle_error_cqe (rdma-core v44
     * providers/mlx5/cq.c): every unlisted syndrome is GENERAL_ERR.
     *
     * @param syndrome the error CQE's syndrome byte
     * @return the status
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
