// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_cq_init_attr_ex} (verbs.h, rdma-core 44): input of ibv_create_cq_ex and mlx5dv_create_cq. */
public final class IbvCqInitAttrEx
{
    public static final int IBV_CQ_INIT_ATTR_MASK_FLAGS = 1 << 0;
    public static final int IBV_CQ_INIT_ATTR_MASK_PD = 1 << 1;
    public static final int IBV_CREATE_CQ_ATTR_SINGLE_THREADED = 1 << 0;
    /** enum ibv_create_cq_wc_flags: the standard set ibv_create_cq implies. */
    public static final long IBV_WC_STANDARD_FLAGS = 0x7f;
    /** enum ibv_create_cq_wc_flags: what the raw receive path reads beyond the standard set. */
    public static final long IBV_WC_EX_WITH_COMPLETION_TIMESTAMP = 1L << 7;
    public static final long IBV_WC_EX_WITH_CVLAN = 1L << 8;
    public static final long IBV_WC_EX_WITH_FLOW_TAG = 1L << 9;
    public static final long IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1L << 11;

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

    public static final long CQE_OFFSET = offset(LAYOUT, "cqe");
    public static final long CQ_CONTEXT_OFFSET = offset(LAYOUT, "cq_context");
    public static final long CHANNEL_OFFSET = offset(LAYOUT, "channel");
    public static final long COMP_VECTOR_OFFSET = offset(LAYOUT, "comp_vector");
    public static final long WC_FLAGS_OFFSET = offset(LAYOUT, "wc_flags");
    public static final long COMP_MASK_OFFSET = offset(LAYOUT, "comp_mask");
    public static final long FLAGS_OFFSET = offset(LAYOUT, "flags");
    public static final long PARENT_DOMAIN_OFFSET = offset(LAYOUT, "parent_domain");

    private IbvCqInitAttrEx()
    {
    }
}
