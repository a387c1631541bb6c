// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct verbs_context} (verbs.h, rdma-core 44): the extended context that wraps every modern
 * {@code ibv_context}, which is its last member. ibv_create_qp_ex, ibv_create_cq_ex and ibv_query_device_ex are
 * static inline and go through these pointers; their address is {@code context - CONTEXT_OFFSET + X_OFFSET}.
 * verbs.h only trusts a slot when {@code abi_compat == __VERBS_ABI_IS_EXTENDED ((void *)UINTPTR_MAX)} and
 * {@code sz} covers it ({@code verbs_get_ctx_op}); {@link InlineVerbs#verbsContextOp} does the same checks.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class VerbsContext
{
    /** Memory layout of {@code struct verbs_context} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_POINTER.withName("query_port"),
        C_POINTER.withName("advise_mr"),
        C_POINTER.withName("alloc_null_mr"),
        C_POINTER.withName("read_counters"),
        C_POINTER.withName("attach_counters_point_flow"),
        C_POINTER.withName("create_counters"),
        C_POINTER.withName("destroy_counters"),
        C_POINTER.withName("reg_dm_mr"),
        C_POINTER.withName("alloc_dm"),
        C_POINTER.withName("free_dm"),
        C_POINTER.withName("modify_flow_action_esp"),
        C_POINTER.withName("destroy_flow_action"),
        C_POINTER.withName("create_flow_action_esp"),
        C_POINTER.withName("modify_qp_rate_limit"),
        C_POINTER.withName("alloc_parent_domain"),
        C_POINTER.withName("dealloc_td"),
        C_POINTER.withName("alloc_td"),
        C_POINTER.withName("modify_cq"),
        C_POINTER.withName("post_srq_ops"),
        C_POINTER.withName("destroy_rwq_ind_table"),
        C_POINTER.withName("create_rwq_ind_table"),
        C_POINTER.withName("destroy_wq"),
        C_POINTER.withName("modify_wq"),
        C_POINTER.withName("create_wq"),
        C_POINTER.withName("query_rt_values"),
        C_POINTER.withName("create_cq_ex"),
        C_POINTER.withName("priv"),
        C_POINTER.withName("query_device_ex"),
        C_POINTER.withName("ibv_destroy_flow"),
        C_POINTER.withName("ABI_placeholder2"),
        C_POINTER.withName("ibv_create_flow"),
        C_POINTER.withName("ABI_placeholder1"),
        C_POINTER.withName("open_qp"),
        C_POINTER.withName("create_qp_ex"),
        C_POINTER.withName("get_srq_num"),
        C_POINTER.withName("create_srq_ex"),
        C_POINTER.withName("open_xrcd"),
        C_POINTER.withName("close_xrcd"),
        U64.withName("_ABI_placeholder3"),
        C_LONG.withName("sz"),
        IbvContext.LAYOUT.withName("context")).withName("verbs_context");

    /** Byte offset of {@code query_port} in {@code struct verbs_context}. */
    public static final long QUERY_PORT_OFFSET = offset(LAYOUT, "query_port");
    /** Byte offset of {@code create_cq_ex} in {@code struct verbs_context}. */
    public static final long CREATE_CQ_EX_OFFSET = offset(LAYOUT, "create_cq_ex");
    /** Byte offset of {@code query_device_ex} in {@code struct verbs_context}. */
    public static final long QUERY_DEVICE_EX_OFFSET = offset(LAYOUT, "query_device_ex");
    /** Byte offset of {@code create_qp_ex} in {@code struct verbs_context}. */
    public static final long CREATE_QP_EX_OFFSET = offset(LAYOUT, "create_qp_ex");
    /** Byte offset of {@code create_srq_ex} in {@code struct verbs_context}. */
    public static final long CREATE_SRQ_EX_OFFSET = offset(LAYOUT, "create_srq_ex");
    /** Byte offset of {@code get_srq_num} in {@code struct verbs_context}. */
    public static final long GET_SRQ_NUM_OFFSET = offset(LAYOUT, "get_srq_num");
    /** Byte offset of {@code open_xrcd} in {@code struct verbs_context}. */
    public static final long OPEN_XRCD_OFFSET = offset(LAYOUT, "open_xrcd");
    /** Byte offset of {@code close_xrcd} in {@code struct verbs_context}. */
    public static final long CLOSE_XRCD_OFFSET = offset(LAYOUT, "close_xrcd");
    /** Byte offset of {@code create_wq} in {@code struct verbs_context}. */
    public static final long CREATE_WQ_OFFSET = offset(LAYOUT, "create_wq");
    /** Byte offset of {@code modify_wq} in {@code struct verbs_context}. */
    public static final long MODIFY_WQ_OFFSET = offset(LAYOUT, "modify_wq");
    /** Byte offset of {@code destroy_wq} in {@code struct verbs_context}. */
    public static final long DESTROY_WQ_OFFSET = offset(LAYOUT, "destroy_wq");
    /** Byte offset of {@code create_rwq_ind_table} in {@code struct verbs_context}. */
    public static final long CREATE_RWQ_IND_TABLE_OFFSET = offset(LAYOUT, "create_rwq_ind_table");
    /** Byte offset of {@code destroy_rwq_ind_table} in {@code struct verbs_context}. */
    public static final long DESTROY_RWQ_IND_TABLE_OFFSET = offset(LAYOUT, "destroy_rwq_ind_table");
    /** Byte offset of {@code sz} in {@code struct verbs_context}. */
    public static final long SZ_OFFSET = offset(LAYOUT, "sz");
    /**
     * Members ibv_create_flow / ibv_destroy_flow (the constant names drop the ibv_ prefix, which would read as a
     * verbs enum).
     */
    public static final long CREATE_FLOW_OFFSET = offset(LAYOUT, "ibv_create_flow");
    /** Byte offset of {@code ibv_destroy_flow} in {@code struct verbs_context}. */
    public static final long DESTROY_FLOW_OFFSET = offset(LAYOUT, "ibv_destroy_flow");
    /** Byte offset of {@code context} in {@code struct verbs_context}. */
    public static final long CONTEXT_OFFSET = offset(LAYOUT, "context");

    private VerbsContext()
    {
    }
}
