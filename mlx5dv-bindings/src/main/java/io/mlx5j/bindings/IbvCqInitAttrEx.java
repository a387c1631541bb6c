// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_cq_init_attr_ex} (verbs.h, rdma-core 44): input of ibv_create_cq_ex and mlx5dv_create_cq. */
public final class IbvCqInitAttrEx
{
    /** {@code IBV_CQ_INIT_ATTR_MASK_FLAGS} ({@code infiniband/verbs.h}). */
    public static final int IBV_CQ_INIT_ATTR_MASK_FLAGS = 1 << 0;
    /** {@code IBV_CQ_INIT_ATTR_MASK_PD} ({@code infiniband/verbs.h}). */
    public static final int IBV_CQ_INIT_ATTR_MASK_PD = 1 << 1;
    /** {@code IBV_CREATE_CQ_ATTR_SINGLE_THREADED} ({@code infiniband/verbs.h}). */
    public static final int IBV_CREATE_CQ_ATTR_SINGLE_THREADED = 1 << 0;
    /** enum ibv_create_cq_wc_flags: the standard set ibv_create_cq implies. */
    public static final long IBV_WC_STANDARD_FLAGS = 0x7f;
    /** enum ibv_create_cq_wc_flags: what the raw receive path reads beyond the standard set. */
    public static final long IBV_WC_EX_WITH_COMPLETION_TIMESTAMP = 1L << 7;
    /** {@code IBV_WC_EX_WITH_CVLAN} ({@code infiniband/verbs.h}). */
    public static final long IBV_WC_EX_WITH_CVLAN = 1L << 8;
    /** {@code IBV_WC_EX_WITH_FLOW_TAG} ({@code infiniband/verbs.h}). */
    public static final long IBV_WC_EX_WITH_FLOW_TAG = 1L << 9;
    /** {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK} ({@code infiniband/verbs.h}). */
    public static final long IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1L << 11;

    /** Memory layout of {@code struct ibv_cq_init_attr_ex} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U32.withName("cqe"),
        pad(4),
        C_POINTER.withName("cq_context"),
        C_POINTER.withName("channel"),
        U32.withName("comp_vector"),
        pad(4),
        U64.withName("wc_flags"),
        U32.withName("comp_mask"),
        U32.withName("flags"),
        C_POINTER.withName("parent_domain")).withName("ibv_cq_init_attr_ex");

    /** Byte offset of {@code cqe} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long CQE_OFFSET = offset(LAYOUT, "cqe");
    /** Byte offset of {@code cq_context} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long CQ_CONTEXT_OFFSET = offset(LAYOUT, "cq_context");
    /** Byte offset of {@code channel} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long CHANNEL_OFFSET = offset(LAYOUT, "channel");
    /** Byte offset of {@code comp_vector} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long COMP_VECTOR_OFFSET = offset(LAYOUT, "comp_vector");
    /** Byte offset of {@code wc_flags} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long WC_FLAGS_OFFSET = offset(LAYOUT, "wc_flags");
    /** Byte offset of {@code comp_mask} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    /** Byte offset of {@code flags} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long FLAGS_OFFSET = offset(LAYOUT, "flags");
    /** Byte offset of {@code parent_domain} in {@code struct ibv_cq_init_attr_ex}. */
    public static final long PARENT_DOMAIN_OFFSET = offset(LAYOUT, "parent_domain");

    private IbvCqInitAttrEx()
    {
    }
}
