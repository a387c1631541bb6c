// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvDeviceAttr;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.bindings.CTypes.BE64;
import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * What {@code ibv_query_device} reports (the subset mlx5j and its users size things by). GUIDs in host order.
 *
 * @param vendorId {@code vendor_id} of {@code struct ibv_device_attr}
 * @param maxCq {@code max_cq} of {@code struct ibv_device_attr}
 * @param maxQpInitRdAtom {@code max_qp_init_rd_atom} of {@code struct ibv_device_attr}
 * @param maxSrq {@code max_srq} of {@code struct ibv_device_attr}
 * @param deviceCapFlags {@code device_cap_flags} of {@code struct ibv_device_attr}
 * @param maxPd {@code max_pd} of {@code struct ibv_device_attr}
 * @param physPortCnt {@code phys_port_cnt} of {@code struct ibv_device_attr}
 * @param atomicCap {@code atomic_cap} of {@code struct ibv_device_attr}
 * @param maxSrqSge {@code max_srq_sge} of {@code struct ibv_device_attr}
 * @param maxAh {@code max_ah} of {@code struct ibv_device_attr}
 * @param maxMrSize {@code max_mr_size} of {@code struct ibv_device_attr}
 * @param fwVer {@code fw_ver} of {@code struct ibv_device_attr}
 * @param sysImageGuid {@code sys_image_guid} of {@code struct ibv_device_attr}
 * @param maxQp {@code max_qp} of {@code struct ibv_device_attr}
 * @param hwVer {@code hw_ver} of {@code struct ibv_device_attr}
 * @param nodeGuid {@code node_guid} of {@code struct ibv_device_attr}
 * @param maxSrqWr {@code max_srq_wr} of {@code struct ibv_device_attr}
 * @param maxMr {@code max_mr} of {@code struct ibv_device_attr}
 * @param maxSge {@code max_sge} of {@code struct ibv_device_attr}
 * @param vendorPartId {@code vendor_part_id} of {@code struct ibv_device_attr}
 * @param maxCqe {@code max_cqe} of {@code struct ibv_device_attr}
 * @param maxPkeys {@code max_pkeys} of {@code struct ibv_device_attr}
 * @param maxQpRdAtom {@code max_qp_rd_atom} of {@code struct ibv_device_attr}
 * @param maxQpWr {@code max_qp_wr} of {@code struct ibv_device_attr}
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record DeviceAttributes(
    String fwVer,
    long nodeGuid,
    long sysImageGuid,
    long maxMrSize,
    int vendorId,
    int vendorPartId,
    int hwVer,
    int maxQp,
    int maxQpWr,
    int deviceCapFlags,
    int maxSge,
    int maxCq,
    int maxCqe,
    int maxMr,
    int maxPd,
    int maxQpRdAtom,
    int maxQpInitRdAtom,
    int atomicCap,
    int maxSrq,
    int maxSrqWr,
    int maxSrqSge,
    int maxAh,
    int maxPkeys,
    int physPortCnt)
{
    static DeviceAttributes read(final MemorySegment a)
    {
        return new DeviceAttributes(
            a.getString(IbvDeviceAttr.FW_VER_OFFSET),
            a.get(BE64, IbvDeviceAttr.NODE_GUID_OFFSET),
            a.get(BE64, IbvDeviceAttr.SYS_IMAGE_GUID_OFFSET),
            a.get(U64, IbvDeviceAttr.MAX_MR_SIZE_OFFSET),
            a.get(U32, IbvDeviceAttr.VENDOR_ID_OFFSET),
            a.get(U32, IbvDeviceAttr.VENDOR_PART_ID_OFFSET),
            a.get(U32, IbvDeviceAttr.HW_VER_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_QP_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_QP_WR_OFFSET),
            a.get(C_INT, IbvDeviceAttr.DEVICE_CAP_FLAGS_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_SGE_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_CQ_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_CQE_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_MR_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_PD_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_QP_RD_ATOM_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_QP_INIT_RD_ATOM_OFFSET),
            a.get(C_INT, IbvDeviceAttr.ATOMIC_CAP_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_SRQ_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_SRQ_WR_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_SRQ_SGE_OFFSET),
            a.get(C_INT, IbvDeviceAttr.MAX_AH_OFFSET),
            Short.toUnsignedInt(a.get(U16, IbvDeviceAttr.MAX_PKEYS_OFFSET)),
            Byte.toUnsignedInt(a.get(U8, IbvDeviceAttr.PHYS_PORT_CNT_OFFSET)));
    }
}
