// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_qp_attr} (verbs.h, rdma-core 44): argument of ibv_modify_qp / ibv_query_qp; which members
 * count is said by the {@code IBV_QP_*} attribute mask (enum ibv_qp_attr_mask).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvQpAttr
{
    /** enum ibv_qp_state. */
    public static final int IBV_QPS_RESET = 0;
    /** {@code IBV_QPS_INIT} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPS_INIT = 1;
    /** {@code IBV_QPS_RTR} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPS_RTR = 2;
    /** {@code IBV_QPS_RTS} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPS_RTS = 3;
    /** {@code IBV_QPS_SQD} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPS_SQD = 4;
    /** {@code IBV_QPS_SQE} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPS_SQE = 5;
    /** {@code IBV_QPS_ERR} ({@code infiniband/verbs.h}). */
    public static final int IBV_QPS_ERR = 6;

    /** enum ibv_mtu. */
    public static final int IBV_MTU_256 = 1;
    /** {@code IBV_MTU_512} ({@code infiniband/verbs.h}). */
    public static final int IBV_MTU_512 = 2;
    /** {@code IBV_MTU_1024} ({@code infiniband/verbs.h}). */
    public static final int IBV_MTU_1024 = 3;
    /** {@code IBV_MTU_2048} ({@code infiniband/verbs.h}). */
    public static final int IBV_MTU_2048 = 4;
    /** {@code IBV_MTU_4096} ({@code infiniband/verbs.h}). */
    public static final int IBV_MTU_4096 = 5;

    /** enum ibv_qp_attr_mask. */
    public static final int IBV_QP_STATE = 1 << 0;
    /** {@code IBV_QP_CUR_STATE} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_CUR_STATE = 1 << 1;
    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2;
    /** {@code IBV_QP_ACCESS_FLAGS} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    /** {@code IBV_QP_PKEY_INDEX} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    /** {@code IBV_QP_PORT} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_PORT = 1 << 5;
    /** {@code IBV_QP_QKEY} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_QKEY = 1 << 6;
    /** {@code IBV_QP_AV} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_AV = 1 << 7;
    /** {@code IBV_QP_PATH_MTU} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    /** {@code IBV_QP_TIMEOUT} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    /** {@code IBV_QP_RETRY_CNT} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    /** {@code IBV_QP_RNR_RETRY} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    /** {@code IBV_QP_RQ_PSN} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    /** {@code IBV_QP_ALT_PATH} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_ALT_PATH = 1 << 14;
    /** {@code IBV_QP_MIN_RNR_TIMER} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    /** {@code IBV_QP_SQ_PSN} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    /** {@code IBV_QP_PATH_MIG_STATE} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_PATH_MIG_STATE = 1 << 18;
    /** {@code IBV_QP_CAP} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_CAP = 1 << 19;
    /** {@code IBV_QP_DEST_QPN} ({@code infiniband/verbs.h}). */
    public static final int IBV_QP_DEST_QPN = 1 << 20;

    /** Memory layout of {@code struct ibv_qp_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("qp_state"),
        C_INT.withName("cur_qp_state"),
        C_INT.withName("path_mtu"),
        C_INT.withName("path_mig_state"),
        U32.withName("qkey"),
        U32.withName("rq_psn"),
        U32.withName("sq_psn"),
        U32.withName("dest_qp_num"),
        C_INT.withName("qp_access_flags"),
        IbvQpCap.LAYOUT.withName("cap"),
        IbvAhAttr.LAYOUT.withName("ah_attr"),
        IbvAhAttr.LAYOUT.withName("alt_ah_attr"),
        U16.withName("pkey_index"),
        U16.withName("alt_pkey_index"),
        U8.withName("en_sqd_async_notify"),
        U8.withName("sq_draining"),
        U8.withName("max_rd_atomic"),
        U8.withName("max_dest_rd_atomic"),
        U8.withName("min_rnr_timer"),
        U8.withName("port_num"),
        U8.withName("timeout"),
        U8.withName("retry_cnt"),
        U8.withName("rnr_retry"),
        U8.withName("alt_port_num"),
        U8.withName("alt_timeout"),
        pad(1),
        U32.withName("rate_limit"),
        pad(4)).withName("ibv_qp_attr");

    /** Byte offset of {@code qp_state} in {@code struct ibv_qp_attr}. */
    public static final long QP_STATE_OFFSET = offset(LAYOUT, "qp_state");
    /** Byte offset of {@code cur_qp_state} in {@code struct ibv_qp_attr}. */
    public static final long CUR_QP_STATE_OFFSET = offset(LAYOUT, "cur_qp_state");
    /** Byte offset of {@code path_mtu} in {@code struct ibv_qp_attr}. */
    public static final long PATH_MTU_OFFSET = offset(LAYOUT, "path_mtu");
    /** Byte offset of {@code path_mig_state} in {@code struct ibv_qp_attr}. */
    public static final long PATH_MIG_STATE_OFFSET = offset(LAYOUT, "path_mig_state");
    /** Byte offset of {@code qkey} in {@code struct ibv_qp_attr}. */
    public static final long QKEY_OFFSET = offset(LAYOUT, "qkey");
    /** Byte offset of {@code rq_psn} in {@code struct ibv_qp_attr}. */
    public static final long RQ_PSN_OFFSET = offset(LAYOUT, "rq_psn");
    /** Byte offset of {@code sq_psn} in {@code struct ibv_qp_attr}. */
    public static final long SQ_PSN_OFFSET = offset(LAYOUT, "sq_psn");
    /** Byte offset of {@code dest_qp_num} in {@code struct ibv_qp_attr}. */
    public static final long DEST_QP_NUM_OFFSET = offset(LAYOUT, "dest_qp_num");
    /** Byte offset of {@code qp_access_flags} in {@code struct ibv_qp_attr}. */
    public static final long QP_ACCESS_FLAGS_OFFSET = offset(LAYOUT, "qp_access_flags");
    /** Byte offset of {@code cap} in {@code struct ibv_qp_attr}. */
    public static final long CAP_OFFSET = offset(LAYOUT, "cap");
    /** Byte offset of {@code ah_attr} in {@code struct ibv_qp_attr}. */
    public static final long AH_ATTR_OFFSET = offset(LAYOUT, "ah_attr");
    /** Byte offset of {@code alt_ah_attr} in {@code struct ibv_qp_attr}. */
    public static final long ALT_AH_ATTR_OFFSET = offset(LAYOUT, "alt_ah_attr");
    /** Byte offset of {@code pkey_index} in {@code struct ibv_qp_attr}. */
    public static final long PKEY_INDEX_OFFSET = offset(LAYOUT, "pkey_index");
    /** Byte offset of {@code max_rd_atomic} in {@code struct ibv_qp_attr}. */
    public static final long MAX_RD_ATOMIC_OFFSET = offset(LAYOUT, "max_rd_atomic");
    /** Byte offset of {@code max_dest_rd_atomic} in {@code struct ibv_qp_attr}. */
    public static final long MAX_DEST_RD_ATOMIC_OFFSET = offset(LAYOUT, "max_dest_rd_atomic");
    /** Byte offset of {@code min_rnr_timer} in {@code struct ibv_qp_attr}. */
    public static final long MIN_RNR_TIMER_OFFSET = offset(LAYOUT, "min_rnr_timer");
    /** Byte offset of {@code port_num} in {@code struct ibv_qp_attr}. */
    public static final long PORT_NUM_OFFSET = offset(LAYOUT, "port_num");
    /** Byte offset of {@code timeout} in {@code struct ibv_qp_attr}. */
    public static final long TIMEOUT_OFFSET = offset(LAYOUT, "timeout");
    /** Byte offset of {@code retry_cnt} in {@code struct ibv_qp_attr}. */
    public static final long RETRY_CNT_OFFSET = offset(LAYOUT, "retry_cnt");
    /** Byte offset of {@code rnr_retry} in {@code struct ibv_qp_attr}. */
    public static final long RNR_RETRY_OFFSET = offset(LAYOUT, "rnr_retry");
    /** Byte offset of {@code rate_limit} in {@code struct ibv_qp_attr}. */
    public static final long RATE_LIMIT_OFFSET = offset(LAYOUT, "rate_limit");

    private IbvQpAttr()
    {
    }
}
