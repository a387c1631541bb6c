// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_context_ops} (verbs.h, rdma-core 44): the provider's data-path entry points. ibv_post_send,
 * ibv_post_recv, ibv_poll_cq and ibv_req_notify_cq are static inline in verbs.h and jump through these pointers,
 * so there is no symbol to bind: {@link InlineVerbs} reads the pointer and calls it. The {@code _compat_*} slots are
 * kept only to place the live ones at the right offsets.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvContextOps
{
    /** Memory layout of {@code struct ibv_context_ops} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("_compat_query_device"),
        C_POINTER.withName("_compat_query_port"),
        C_POINTER.withName("_compat_alloc_pd"),
        C_POINTER.withName("_compat_dealloc_pd"),
        C_POINTER.withName("_compat_reg_mr"),
        C_POINTER.withName("_compat_rereg_mr"),
        C_POINTER.withName("_compat_dereg_mr"),
        C_POINTER.withName("alloc_mw"),
        C_POINTER.withName("bind_mw"),
        C_POINTER.withName("dealloc_mw"),
        C_POINTER.withName("_compat_create_cq"),
        C_POINTER.withName("poll_cq"),
        C_POINTER.withName("req_notify_cq"),
        C_POINTER.withName("_compat_cq_event"),
        C_POINTER.withName("_compat_resize_cq"),
        C_POINTER.withName("_compat_destroy_cq"),
        C_POINTER.withName("_compat_create_srq"),
        C_POINTER.withName("_compat_modify_srq"),
        C_POINTER.withName("_compat_query_srq"),
        C_POINTER.withName("_compat_destroy_srq"),
        C_POINTER.withName("post_srq_recv"),
        C_POINTER.withName("_compat_create_qp"),
        C_POINTER.withName("_compat_query_qp"),
        C_POINTER.withName("_compat_modify_qp"),
        C_POINTER.withName("_compat_destroy_qp"),
        C_POINTER.withName("post_send"),
        C_POINTER.withName("post_recv"),
        C_POINTER.withName("_compat_create_ah"),
        C_POINTER.withName("_compat_destroy_ah"),
        C_POINTER.withName("_compat_attach_mcast"),
        C_POINTER.withName("_compat_detach_mcast"),
        C_POINTER.withName("_compat_async_event")).withName("ibv_context_ops");

    /** Byte offset of {@code alloc_mw} in {@code struct ibv_context_ops}. */
    public static final long ALLOC_MW_OFFSET = offset(LAYOUT, "alloc_mw");
    /** Byte offset of {@code bind_mw} in {@code struct ibv_context_ops}. */
    public static final long BIND_MW_OFFSET = offset(LAYOUT, "bind_mw");
    /** Byte offset of {@code dealloc_mw} in {@code struct ibv_context_ops}. */
    public static final long DEALLOC_MW_OFFSET = offset(LAYOUT, "dealloc_mw");
    /** Byte offset of {@code poll_cq} in {@code struct ibv_context_ops}. */
    public static final long POLL_CQ_OFFSET = offset(LAYOUT, "poll_cq");
    /** Byte offset of {@code req_notify_cq} in {@code struct ibv_context_ops}. */
    public static final long REQ_NOTIFY_CQ_OFFSET = offset(LAYOUT, "req_notify_cq");
    /** Byte offset of {@code post_srq_recv} in {@code struct ibv_context_ops}. */
    public static final long POST_SRQ_RECV_OFFSET = offset(LAYOUT, "post_srq_recv");
    /** Byte offset of {@code post_send} in {@code struct ibv_context_ops}. */
    public static final long POST_SEND_OFFSET = offset(LAYOUT, "post_send");
    /** Byte offset of {@code post_recv} in {@code struct ibv_context_ops}. */
    public static final long POST_RECV_OFFSET = offset(LAYOUT, "post_recv");

    private IbvContextOps()
    {
    }
}
