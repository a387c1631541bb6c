// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvDeviceAttr;
import io.mlx5j.bindings.IbvDeviceAttrEx;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvContext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;

/**
 * What an mlx5 device says it can do, read at run time (never assumed from the part ID): ibv_query_device_ex for the
 * generic attributes and clock, mlx5dv_query_device for what libmlx5 learned in GET_CONTEXT and the mlx5 extensions.
 * Read-only and allocation-free after {@link #query(Context)}; a value the running library or device does not report
 * is 0 (the structs are zeroed before the calls, and mlx5dv_query_device clears the comp_mask bits it could not fill).
 *
 * @param vendorId               {@code ibv_device_attr.vendor_id}: 0x02c9 for Mellanox/NVIDIA (the IEEE OUI).
 * @param vendorPartId           {@code ibv_device_attr.vendor_part_id}: the PCI device id, 4117 ConnectX-4 Lx,
 *                               4119 ConnectX-5, 4125 ConnectX-6 Dx, 4129 ConnectX-7.
 * @param firmware               {@code ibv_device_attr.fw_ver}: "major.minor.subminor".
 * @param cqeVersion             1 when {@code mlx5dv_context.flags} has MLX5DV_CONTEXT_FLAGS_CQE_V1 (the CQE carries
 *                               the user index; libmlx5 asked for it in GET_CONTEXT), else 0.
 * @param ethernet               port 1's {@code ibv_port_attr.link_layer} is Ethernet (RoCE).
 * @param minInlineHeaderBytes   bytes of each raw Ethernet frame that must ride inline in the WQE: libmlx5 keeps
 *                               GET_CONTEXT's eth_min_inline private, so this is derived as the Linux driver derives
 *                               it: 18 (L2) on ConnectX-4 Lx over Ethernet (wqe_inline_mode), 0 otherwise.
 * @param hcaCoreClockKhz        {@code ibv_device_attr_ex.hca_core_clock}: the free-running clock's frequency in kHz,
 *                               0 when the device has no completion timestamps.
 * @param completionTimestampMask {@code ibv_device_attr_ex.completion_timestamp_mask}: valid bits of a CQE timestamp.
 * @param realTimeTimestamps     {@code mlx5dv_context.flags} has MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS: CQs may carry
 *                               CLOCK_REALTIME-based stamps (ConnectX-6 Dx and later, in the driver's
 *                               set_ucontext_resp when sq/rq/qp_ts_format allow real time).
 * @param maxClockInfoUpdateNsec {@code mlx5dv_context.max_clock_info_update_nsec}: the longest the clock-info page
 *                               (free-running to CLOCK_REALTIME) goes without an update; 0 when not reported.
 * @param maxTso                 {@code ibv_device_attr_ex.tso_caps.max_tso}: the largest LSO payload in bytes.
 * @param tsoQpTypes             {@code ibv_device_attr_ex.tso_caps.supported_qpts}: bit per enum ibv_qp_type.
 * @param cqeCompressionMaxNum   {@code mlx5dv_context.cqe_comp_caps.max_num}: CQEs per compressed block, 0 = none.
 * @param cqeCompressionFormats  {@code mlx5dv_context.cqe_comp_caps.supported_format}: MLX5DV_CQE_RES_FORMAT_* bits.
 * @param stridingMinLogStrideBytes {@code mlx5dv_context.striding_rq_caps.min_single_stride_log_num_of_bytes}.
 * @param stridingMaxLogStrideBytes {@code mlx5dv_context.striding_rq_caps.max_single_stride_log_num_of_bytes}.
 * @param stridingMinLogStrides  {@code mlx5dv_context.striding_rq_caps.min_single_wqe_log_num_of_strides}.
 * @param stridingMaxLogStrides  {@code mlx5dv_context.striding_rq_caps.max_single_wqe_log_num_of_strides}.
 * @param stridingQpTypes        {@code mlx5dv_context.striding_rq_caps.supported_qpts}: 0 = no striding RQ.
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record DeviceCapabilities(
    int vendorId,
    int vendorPartId,
    String firmware,
    int cqeVersion,
    boolean ethernet,
    int minInlineHeaderBytes,
    long hcaCoreClockKhz,
    long completionTimestampMask,
    boolean realTimeTimestamps,
    long maxClockInfoUpdateNsec,
    int maxTso,
    int tsoQpTypes,
    int cqeCompressionMaxNum,
    int cqeCompressionFormats,
    int stridingMinLogStrideBytes,
    int stridingMaxLogStrideBytes,
    int stridingMinLogStrides,
    int stridingMaxLogStrides,
    int stridingQpTypes)
{
    /** PCI device id (= vendor_part_id) of ConnectX-4 Lx, the one generation that needs L2 inline headers. */
    public static final int PART_CONNECTX4_LX = 4117;
    /** MLX5_ETH_L2_INLINE_HEADER_SIZE (rdma-core providers/mlx5): destination, source MAC, one VLAN tag. */
    public static final int L2_INLINE_HEADER_BYTES = 18;

    /**
     * Queries the device behind an open context.
     *
     * @param context an open context
     * @throws VerbsException naming the call when ibv_query_device_ex or mlx5dv_query_device fails (the latter with
     *                        EOPNOTSUPP on a context that is not mlx5).
     * @return the capabilities
     */
    public static DeviceCapabilities query(final Context context)
    {
        final MemorySegment ctx = context.pointer();
        final boolean eth = context.queryPort(1).isEthernet();
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment ax = tmp.allocate(IbvDeviceAttrEx.LAYOUT);
            int rc = InlineVerbs.ibv_query_device_ex(ctx, ax);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_device_ex", rc, context.deviceName());
            }
            final MemorySegment dv = tmp.allocate(Mlx5dvContext.LAYOUT);
            dv.set(U64, Mlx5dvContext.COMP_MASK_OFFSET, Mlx5dvContext.MLX5DV_CONTEXT_MASK_CQE_COMPRESION |
                Mlx5dvContext.MLX5DV_CONTEXT_MASK_STRIDING_RQ | Mlx5dvContext.MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE);
            rc = Mlx5dv.mlx5dv_query_device(ctx, dv);
            if (rc != 0)
            {
                throw new VerbsException("mlx5dv_query_device", rc, context.deviceName());
            }
            final long orig = IbvDeviceAttrEx.ORIG_ATTR_OFFSET;
            final int part = ax.get(U32, orig + IbvDeviceAttr.VENDOR_PART_ID_OFFSET);
            final long flags = dv.get(U64, Mlx5dvContext.FLAGS_OFFSET);
            final long mask = dv.get(U64, Mlx5dvContext.COMP_MASK_OFFSET);
            final boolean comp = (mask & Mlx5dvContext.MLX5DV_CONTEXT_MASK_CQE_COMPRESION) != 0;
            final boolean striding = (mask & Mlx5dvContext.MLX5DV_CONTEXT_MASK_STRIDING_RQ) != 0;
            final boolean clockInfo = (mask & Mlx5dvContext.MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE) != 0;
            return new DeviceCapabilities(
                ax.get(U32, orig + IbvDeviceAttr.VENDOR_ID_OFFSET),
                part,
                ax.getString(orig + IbvDeviceAttr.FW_VER_OFFSET),
                (flags & Mlx5dvContext.MLX5DV_CONTEXT_FLAGS_CQE_V1) != 0 ? 1 : 0,
                eth,
                eth && part == PART_CONNECTX4_LX ? L2_INLINE_HEADER_BYTES : 0,
                ax.get(U64, IbvDeviceAttrEx.HCA_CORE_CLOCK_OFFSET),
                ax.get(U64, IbvDeviceAttrEx.COMPLETION_TIMESTAMP_MASK_OFFSET),
                (flags & Mlx5dvContext.MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS) != 0,
                clockInfo ? dv.get(U64, Mlx5dvContext.MAX_CLOCK_INFO_UPDATE_NSEC_OFFSET) : 0,
                ax.get(U32, IbvDeviceAttrEx.TSO_MAX_TSO_OFFSET),
                ax.get(U32, IbvDeviceAttrEx.TSO_SUPPORTED_QPTS_OFFSET),
                comp ? dv.get(U32, Mlx5dvContext.CQE_COMP_MAX_NUM_OFFSET) : 0,
                comp ? dv.get(U32, Mlx5dvContext.CQE_COMP_SUPPORTED_FORMAT_OFFSET) : 0,
                striding ? dv.get(U32, Mlx5dvContext.STRIDING_MIN_STRIDE_BYTES_OFFSET) : 0,
                striding ? dv.get(U32, Mlx5dvContext.STRIDING_MAX_STRIDE_BYTES_OFFSET) : 0,
                striding ? dv.get(U32, Mlx5dvContext.STRIDING_MIN_STRIDES_OFFSET) : 0,
                striding ? dv.get(U32, Mlx5dvContext.STRIDING_MAX_STRIDES_OFFSET) : 0,
                striding ? dv.get(U32, Mlx5dvContext.STRIDING_SUPPORTED_QPTS_OFFSET) : 0);
        }
    }

    /**
     * {@return whether the device has a completion clock} Then CQE timestamps can be converted (free-running or real
     * time).
     */
    public boolean hasClock()
    {
        return hcaCoreClockKhz != 0;
    }
}
