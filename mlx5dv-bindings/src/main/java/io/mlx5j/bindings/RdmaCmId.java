// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct rdma_cm_id} (rdma/rdma_cma.h, rdma-core 44): librdmacm's identifier. {@code verbs} and
 * {@code port_num} are set once the address is bound to a device (after ADDR_RESOLVED, or on a CONNECT_REQUEST's
 * new id); {@code qp} only when librdmacm created the QP (rdma_create_qp), which mlx5j does not do.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class RdmaCmId
{
    /** enum rdma_port_space. */
    public static final int RDMA_PS_IPOIB = 0x0002;
    /** {@code RDMA_PS_TCP} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_PS_TCP = 0x0106;
    /** {@code RDMA_PS_UDP} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_PS_UDP = 0x0111;
    /** {@code RDMA_PS_IB} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_PS_IB = 0x013F;

    /** RDMA_MAX_RESP_RES / RDMA_MAX_INIT_DEPTH: the largest responder resources / initiator depth. */
    public static final int RDMA_MAX_RESP_RES = 0xFF;
    /** {@code RDMA_MAX_INIT_DEPTH} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_MAX_INIT_DEPTH = 0xFF;
    /** RDMA_UDP_QKEY: the Q_Key of RDMA_PS_UDP ids. */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    /** rdma_set_option levels and names (enums after rdma_set_option in rdma_cma.h). */
    public static final int RDMA_OPTION_ID = 0;
    /** {@code RDMA_OPTION_IB} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_OPTION_IB = 1;
    /** {@code RDMA_OPTION_ID_TOS} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_OPTION_ID_TOS = 0;
    /** {@code RDMA_OPTION_ID_REUSEADDR} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_OPTION_ID_REUSEADDR = 1;
    /** {@code RDMA_OPTION_ID_AFONLY} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_OPTION_ID_AFONLY = 2;
    /** {@code RDMA_OPTION_ID_ACK_TIMEOUT} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_OPTION_ID_ACK_TIMEOUT = 3;
    /** {@code RDMA_OPTION_IB_PATH} ({@code rdma/rdma_cma.h}). */
    public static final int RDMA_OPTION_IB_PATH = 1;

    /** Memory layout of {@code struct rdma_cm_id} (rdma/rdma_cma.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("verbs"),
        C_POINTER.withName("channel"),
        C_POINTER.withName("context"),
        C_POINTER.withName("qp"),
        RdmaRoute.LAYOUT.withName("route"),
        C_INT.withName("ps"),
        U8.withName("port_num"),
        pad(3),
        C_POINTER.withName("event"),
        C_POINTER.withName("send_cq_channel"),
        C_POINTER.withName("send_cq"),
        C_POINTER.withName("recv_cq_channel"),
        C_POINTER.withName("recv_cq"),
        C_POINTER.withName("srq"),
        C_POINTER.withName("pd"),
        C_INT.withName("qp_type"),
        pad(4)).withName("rdma_cm_id");

    /** Byte offset of {@code verbs} in {@code struct rdma_cm_id}. */
    public static final long VERBS_OFFSET = offset(LAYOUT, "verbs");
    /** Byte offset of {@code channel} in {@code struct rdma_cm_id}. */
    public static final long CHANNEL_OFFSET = offset(LAYOUT, "channel");
    /** Byte offset of {@code context} in {@code struct rdma_cm_id}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");
    /** Byte offset of {@code qp} in {@code struct rdma_cm_id}. */
    public static final long QP_OFFSET = offset(LAYOUT, "qp");
    /** Byte offset of {@code route} in {@code struct rdma_cm_id}. */
    public static final long ROUTE_OFFSET = offset(LAYOUT, "route");
    /** Byte offset of {@code route.addr.src_addr} in {@code struct rdma_cm_id}. */
    public static final long SRC_ADDR_OFFSET = offset(LAYOUT, "route", "addr", "src_addr");
    /** Byte offset of {@code route.addr.dst_addr} in {@code struct rdma_cm_id}. */
    public static final long DST_ADDR_OFFSET = offset(LAYOUT, "route", "addr", "dst_addr");
    /** Byte offset of {@code route.addr.addr.ibaddr.sgid} in {@code struct rdma_cm_id}. */
    public static final long SGID_OFFSET = offset(LAYOUT, "route", "addr", "addr", "ibaddr", "sgid");
    /** Byte offset of {@code route.addr.addr.ibaddr.dgid} in {@code struct rdma_cm_id}. */
    public static final long DGID_OFFSET = offset(LAYOUT, "route", "addr", "addr", "ibaddr", "dgid");
    /** Byte offset of {@code route.path_rec} in {@code struct rdma_cm_id}. */
    public static final long PATH_REC_OFFSET = offset(LAYOUT, "route", "path_rec");
    /** Byte offset of {@code route.num_paths} in {@code struct rdma_cm_id}. */
    public static final long NUM_PATHS_OFFSET = offset(LAYOUT, "route", "num_paths");
    /** Byte offset of {@code ps} in {@code struct rdma_cm_id}. */
    public static final long PS_OFFSET = offset(LAYOUT, "ps");
    /** Byte offset of {@code port_num} in {@code struct rdma_cm_id}. */
    public static final long PORT_NUM_OFFSET = offset(LAYOUT, "port_num");
    /** Byte offset of {@code event} in {@code struct rdma_cm_id}. */
    public static final long EVENT_OFFSET = offset(LAYOUT, "event");
    /** Byte offset of {@code pd} in {@code struct rdma_cm_id}. */
    public static final long PD_OFFSET = offset(LAYOUT, "pd");
    /** Byte offset of {@code qp_type} in {@code struct rdma_cm_id}. */
    public static final long QP_TYPE_OFFSET = offset(LAYOUT, "qp_type");

    private RdmaCmId()
    {
    }
}
