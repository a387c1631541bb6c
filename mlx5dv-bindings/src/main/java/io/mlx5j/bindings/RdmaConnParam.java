// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct rdma_conn_param} (rdma/rdma_cma.h, rdma-core 44): what rdma_connect / rdma_accept send and what a
 * CONNECT_REQUEST / ESTABLISHED / REJECTED event carries. {@code srq} and {@code qp_num} are read by librdmacm only
 * when no QP was created on the id (mlx5j's case: it creates the QP itself).
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaConnParam
{
    /** Memory layout of {@code struct rdma_conn_param} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("private_data"),
        U8.withName("private_data_len"),
        U8.withName("responder_resources"),
        U8.withName("initiator_depth"),
        U8.withName("flow_control"),
        U8.withName("retry_count"),
        U8.withName("rnr_retry_count"),
        U8.withName("srq"),
        pad(1),
        U32.withName("qp_num"),
        pad(4)).withName("rdma_conn_param");

    /** Byte offset of {@code private_data} in {@code struct rdma_conn_param}. */
    public static final long PRIVATE_DATA_OFFSET = offset(LAYOUT, "private_data");
    /** Byte offset of {@code private_data_len} in {@code struct rdma_conn_param}. */
    public static final long PRIVATE_DATA_LEN_OFFSET = offset(LAYOUT, "private_data_len");
    /** Byte offset of {@code responder_resources} in {@code struct rdma_conn_param}. */
    public static final long RESPONDER_RESOURCES_OFFSET = offset(LAYOUT, "responder_resources");
    /** Byte offset of {@code initiator_depth} in {@code struct rdma_conn_param}. */
    public static final long INITIATOR_DEPTH_OFFSET = offset(LAYOUT, "initiator_depth");
    /** Byte offset of {@code flow_control} in {@code struct rdma_conn_param}. */
    public static final long FLOW_CONTROL_OFFSET = offset(LAYOUT, "flow_control");
    /** Byte offset of {@code retry_count} in {@code struct rdma_conn_param}. */
    public static final long RETRY_COUNT_OFFSET = offset(LAYOUT, "retry_count");
    /** Byte offset of {@code rnr_retry_count} in {@code struct rdma_conn_param}. */
    public static final long RNR_RETRY_COUNT_OFFSET = offset(LAYOUT, "rnr_retry_count");
    /** Byte offset of {@code srq} in {@code struct rdma_conn_param}. */
    public static final long SRQ_OFFSET = offset(LAYOUT, "srq");
    /** Byte offset of {@code qp_num} in {@code struct rdma_conn_param}. */
    public static final long QP_NUM_OFFSET = offset(LAYOUT, "qp_num");

    private RdmaConnParam()
    {
    }
}
