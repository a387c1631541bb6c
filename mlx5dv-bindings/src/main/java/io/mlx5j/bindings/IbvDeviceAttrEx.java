// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_device_attr_ex} (verbs.h, rdma-core 44): output of ibv_query_device_ex. The classic attributes
 * first ({@link IbvDeviceAttr} as orig_attr), then the extended ones the run-time capability report reads: the
 * completion timestamp clock (hca_core_clock in kHz, completion_timestamp_mask) and TSO limits.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvDeviceAttrEx
{
    /** Memory layout of {@code struct ibv_device_attr_ex} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        IbvDeviceAttr.LAYOUT.withName("orig_attr"),
        U32.withName("comp_mask"),
        pad(4),
        structLayout(
            U64.withName("general_caps"),
            structLayout(
                U32.withName("rc_odp_caps"),
                U32.withName("uc_odp_caps"),
                U32.withName("ud_odp_caps")).withName("per_transport_caps"),
            pad(4)).withName("odp_caps"),
        U64.withName("completion_timestamp_mask"),
        U64.withName("hca_core_clock"),
        U64.withName("device_cap_flags_ex"),
        structLayout(
            U32.withName("max_tso"),
            U32.withName("supported_qpts")).withName("tso_caps"),
        structLayout(
            U32.withName("supported_qpts"),
            U32.withName("max_rwq_indirection_tables"),
            U32.withName("max_rwq_indirection_table_size"),
            pad(4),
            U64.withName("rx_hash_fields_mask"),
            U8.withName("rx_hash_function"),
            pad(7)).withName("rss_caps"),
        U32.withName("max_wq_type_rq"),
        structLayout(
            U32.withName("qp_rate_limit_min"),
            U32.withName("qp_rate_limit_max"),
            U32.withName("supported_qpts")).withName("packet_pacing_caps"),
        U32.withName("raw_packet_caps"),
        structLayout(
            U32.withName("max_rndv_hdr_size"),
            U32.withName("max_num_tags"),
            U32.withName("flags"),
            U32.withName("max_ops"),
            U32.withName("max_sge")).withName("tm_caps"),
        structLayout(
            U16.withName("max_cq_count"),
            U16.withName("max_cq_period")).withName("cq_mod_caps"),
        pad(4),
        U64.withName("max_dm_size"),
        structLayout(
            U16.withName("fetch_add"),
            U16.withName("swap"),
            U16.withName("compare_swap")).withName("pci_atomic_caps"),
        pad(2),
        U32.withName("xrc_odp_caps"),
        U32.withName("phys_port_cnt_ex")).withName("ibv_device_attr_ex");

    /** Byte offset of {@code orig_attr} in {@code struct ibv_device_attr_ex}. */
    public static final long ORIG_ATTR_OFFSET = offset(LAYOUT, "orig_attr");
    /** Byte offset of {@code completion_timestamp_mask} in {@code struct ibv_device_attr_ex}. */
    public static final long COMPLETION_TIMESTAMP_MASK_OFFSET = offset(LAYOUT, "completion_timestamp_mask");
    /** Byte offset of {@code hca_core_clock} in {@code struct ibv_device_attr_ex}. */
    public static final long HCA_CORE_CLOCK_OFFSET = offset(LAYOUT, "hca_core_clock");
    /** Byte offset of {@code device_cap_flags_ex} in {@code struct ibv_device_attr_ex}. */
    public static final long DEVICE_CAP_FLAGS_EX_OFFSET = offset(LAYOUT, "device_cap_flags_ex");
    /** Byte offset of {@code tso_caps.max_tso} in {@code struct ibv_device_attr_ex}. */
    public static final long TSO_MAX_TSO_OFFSET = offset(LAYOUT, "tso_caps", "max_tso");
    /** Byte offset of {@code tso_caps.supported_qpts} in {@code struct ibv_device_attr_ex}. */
    public static final long TSO_SUPPORTED_QPTS_OFFSET = offset(LAYOUT, "tso_caps", "supported_qpts");
    /** Byte offset of {@code raw_packet_caps} in {@code struct ibv_device_attr_ex}. */
    public static final long RAW_PACKET_CAPS_OFFSET = offset(LAYOUT, "raw_packet_caps");

    private IbvDeviceAttrEx()
    {
    }
}
