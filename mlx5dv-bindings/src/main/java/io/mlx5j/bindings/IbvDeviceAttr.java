// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_device_attr} (verbs.h, rdma-core 44): output of ibv_query_device.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvDeviceAttr
{
    /** enum ibv_device_cap_flags (verbs.h): checksum offload on raw packet QPs. */
    public static final int IBV_DEVICE_RAW_IP_CSUM = 1 << 26;

    /** Memory layout of {@code struct ibv_device_attr} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        bytes(64).withName("fw_ver"),
        BE64.withName("node_guid"),
        BE64.withName("sys_image_guid"),
        U64.withName("max_mr_size"),
        U64.withName("page_size_cap"),
        U32.withName("vendor_id"),
        U32.withName("vendor_part_id"),
        U32.withName("hw_ver"),
        C_INT.withName("max_qp"),
        C_INT.withName("max_qp_wr"),
        C_INT.withName("device_cap_flags"),
        C_INT.withName("max_sge"),
        C_INT.withName("max_sge_rd"),
        C_INT.withName("max_cq"),
        C_INT.withName("max_cqe"),
        C_INT.withName("max_mr"),
        C_INT.withName("max_pd"),
        C_INT.withName("max_qp_rd_atom"),
        C_INT.withName("max_ee_rd_atom"),
        C_INT.withName("max_res_rd_atom"),
        C_INT.withName("max_qp_init_rd_atom"),
        C_INT.withName("max_ee_init_rd_atom"),
        C_INT.withName("atomic_cap"),
        C_INT.withName("max_ee"),
        C_INT.withName("max_rdd"),
        C_INT.withName("max_mw"),
        C_INT.withName("max_raw_ipv6_qp"),
        C_INT.withName("max_raw_ethy_qp"),
        C_INT.withName("max_mcast_grp"),
        C_INT.withName("max_mcast_qp_attach"),
        C_INT.withName("max_total_mcast_qp_attach"),
        C_INT.withName("max_ah"),
        C_INT.withName("max_fmr"),
        C_INT.withName("max_map_per_fmr"),
        C_INT.withName("max_srq"),
        C_INT.withName("max_srq_wr"),
        C_INT.withName("max_srq_sge"),
        U16.withName("max_pkeys"),
        U8.withName("local_ca_ack_delay"),
        U8.withName("phys_port_cnt"),
        pad(4)).withName("ibv_device_attr");

    /** Byte offset of {@code fw_ver} in {@code struct ibv_device_attr}. */
    public static final long FW_VER_OFFSET = offset(LAYOUT, "fw_ver");
    /** Byte offset of {@code node_guid} in {@code struct ibv_device_attr}. */
    public static final long NODE_GUID_OFFSET = offset(LAYOUT, "node_guid");
    /** Byte offset of {@code sys_image_guid} in {@code struct ibv_device_attr}. */
    public static final long SYS_IMAGE_GUID_OFFSET = offset(LAYOUT, "sys_image_guid");
    /** Byte offset of {@code max_mr_size} in {@code struct ibv_device_attr}. */
    public static final long MAX_MR_SIZE_OFFSET = offset(LAYOUT, "max_mr_size");
    /** Byte offset of {@code vendor_id} in {@code struct ibv_device_attr}. */
    public static final long VENDOR_ID_OFFSET = offset(LAYOUT, "vendor_id");
    /** Byte offset of {@code vendor_part_id} in {@code struct ibv_device_attr}. */
    public static final long VENDOR_PART_ID_OFFSET = offset(LAYOUT, "vendor_part_id");
    /** Byte offset of {@code hw_ver} in {@code struct ibv_device_attr}. */
    public static final long HW_VER_OFFSET = offset(LAYOUT, "hw_ver");
    /** Byte offset of {@code max_qp} in {@code struct ibv_device_attr}. */
    public static final long MAX_QP_OFFSET = offset(LAYOUT, "max_qp");
    /** Byte offset of {@code max_qp_wr} in {@code struct ibv_device_attr}. */
    public static final long MAX_QP_WR_OFFSET = offset(LAYOUT, "max_qp_wr");
    /** Byte offset of {@code device_cap_flags} in {@code struct ibv_device_attr}. */
    public static final long DEVICE_CAP_FLAGS_OFFSET = offset(LAYOUT, "device_cap_flags");
    /** Byte offset of {@code max_sge} in {@code struct ibv_device_attr}. */
    public static final long MAX_SGE_OFFSET = offset(LAYOUT, "max_sge");
    /** Byte offset of {@code max_cq} in {@code struct ibv_device_attr}. */
    public static final long MAX_CQ_OFFSET = offset(LAYOUT, "max_cq");
    /** Byte offset of {@code max_cqe} in {@code struct ibv_device_attr}. */
    public static final long MAX_CQE_OFFSET = offset(LAYOUT, "max_cqe");
    /** Byte offset of {@code max_mr} in {@code struct ibv_device_attr}. */
    public static final long MAX_MR_OFFSET = offset(LAYOUT, "max_mr");
    /** Byte offset of {@code max_pd} in {@code struct ibv_device_attr}. */
    public static final long MAX_PD_OFFSET = offset(LAYOUT, "max_pd");
    /** Byte offset of {@code max_qp_rd_atom} in {@code struct ibv_device_attr}. */
    public static final long MAX_QP_RD_ATOM_OFFSET = offset(LAYOUT, "max_qp_rd_atom");
    /** Byte offset of {@code max_qp_init_rd_atom} in {@code struct ibv_device_attr}. */
    public static final long MAX_QP_INIT_RD_ATOM_OFFSET = offset(LAYOUT, "max_qp_init_rd_atom");
    /** Byte offset of {@code atomic_cap} in {@code struct ibv_device_attr}. */
    public static final long ATOMIC_CAP_OFFSET = offset(LAYOUT, "atomic_cap");
    /** Byte offset of {@code max_ah} in {@code struct ibv_device_attr}. */
    public static final long MAX_AH_OFFSET = offset(LAYOUT, "max_ah");
    /** Byte offset of {@code max_srq} in {@code struct ibv_device_attr}. */
    public static final long MAX_SRQ_OFFSET = offset(LAYOUT, "max_srq");
    /** Byte offset of {@code max_srq_wr} in {@code struct ibv_device_attr}. */
    public static final long MAX_SRQ_WR_OFFSET = offset(LAYOUT, "max_srq_wr");
    /** Byte offset of {@code max_srq_sge} in {@code struct ibv_device_attr}. */
    public static final long MAX_SRQ_SGE_OFFSET = offset(LAYOUT, "max_srq_sge");
    /** Byte offset of {@code max_pkeys} in {@code struct ibv_device_attr}. */
    public static final long MAX_PKEYS_OFFSET = offset(LAYOUT, "max_pkeys");
    /** Byte offset of {@code phys_port_cnt} in {@code struct ibv_device_attr}. */
    public static final long PHYS_PORT_CNT_OFFSET = offset(LAYOUT, "phys_port_cnt");

    private IbvDeviceAttr()
    {
    }
}
