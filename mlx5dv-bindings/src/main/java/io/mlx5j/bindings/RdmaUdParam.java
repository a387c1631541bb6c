// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct rdma_ud_param} (rdma/rdma_cma.h, rdma-core 44): what a UD id's ESTABLISHED or MULTICAST_JOIN event
 * carries: the address handle attributes, remote QPN and Q_Key to send to.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaUdParam
{
    /** Memory layout of {@code struct rdma_ud_param} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("private_data"),
        U8.withName("private_data_len"),
        pad(7),
        IbvAhAttr.LAYOUT.withName("ah_attr"),
        U32.withName("qp_num"),
        U32.withName("qkey")).withName("rdma_ud_param");

    /** Byte offset of {@code private_data} in {@code struct rdma_ud_param}. */
    public static final long PRIVATE_DATA_OFFSET = offset(LAYOUT, "private_data");
    /** Byte offset of {@code private_data_len} in {@code struct rdma_ud_param}. */
    public static final long PRIVATE_DATA_LEN_OFFSET = offset(LAYOUT, "private_data_len");
    /** Byte offset of {@code ah_attr} in {@code struct rdma_ud_param}. */
    public static final long AH_ATTR_OFFSET = offset(LAYOUT, "ah_attr");
    /** Byte offset of {@code qp_num} in {@code struct rdma_ud_param}. */
    public static final long QP_NUM_OFFSET = offset(LAYOUT, "qp_num");
    /** Byte offset of {@code qkey} in {@code struct rdma_ud_param}. */
    public static final long QKEY_OFFSET = offset(LAYOUT, "qkey");

    private RdmaUdParam()
    {
    }
}
