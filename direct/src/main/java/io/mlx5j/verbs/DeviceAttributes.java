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

/** What {@code ibv_query_device} reports (the subset mlx5j and its users size things by). GUIDs in host order. */
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
