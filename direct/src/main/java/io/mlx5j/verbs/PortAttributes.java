// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvPortAttr;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * What {@code ibv_query_port} reports. {@code state} is enum ibv_port_state (4 = ACTIVE); MTUs are enum ibv_mtu
 * (1 = 256 ... 5 = 4096); {@code linkLayer} is IBV_LINK_LAYER_INFINIBAND (1) or _ETHERNET (2).
 *
 * @param linkLayer {@code link_layer} of {@code struct ibv_port_attr}
 * @param portCapFlags {@code port_cap_flags} of {@code struct ibv_port_attr}
 * @param gidTblLen {@code gid_tbl_len} of {@code struct ibv_port_attr}
 * @param pkeyTblLen {@code pkey_tbl_len} of {@code struct ibv_port_attr}
 * @param lid {@code lid} of {@code struct ibv_port_attr}
 * @param smLid {@code sm_lid} of {@code struct ibv_port_attr}
 * @param port {@code port} of {@code struct ibv_port_attr}
 * @param activeMtu {@code active_mtu} of {@code struct ibv_port_attr}
 * @param maxMsgSz {@code max_msg_sz} of {@code struct ibv_port_attr}
 * @param activeSpeed {@code active_speed} of {@code struct ibv_port_attr}
 * @param state {@code state} of {@code struct ibv_port_attr}
 * @param activeWidth {@code active_width} of {@code struct ibv_port_attr}
 * @param lmc {@code lmc} of {@code struct ibv_port_attr}
 * @param physState {@code phys_state} of {@code struct ibv_port_attr}
 * @param maxMtu {@code max_mtu} of {@code struct ibv_port_attr}
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record PortAttributes(
    int port,
    int state,
    int maxMtu,
    int activeMtu,
    int gidTblLen,
    int portCapFlags,
    long maxMsgSz,
    int pkeyTblLen,
    int lid,
    int smLid,
    int lmc,
    int activeWidth,
    int activeSpeed,
    int physState,
    int linkLayer)
{
    static PortAttributes read(final int port, final MemorySegment a)
    {
        return new PortAttributes(
            port,
            a.get(C_INT, IbvPortAttr.STATE_OFFSET),
            a.get(C_INT, IbvPortAttr.MAX_MTU_OFFSET),
            a.get(C_INT, IbvPortAttr.ACTIVE_MTU_OFFSET),
            a.get(C_INT, IbvPortAttr.GID_TBL_LEN_OFFSET),
            a.get(U32, IbvPortAttr.PORT_CAP_FLAGS_OFFSET),
            Integer.toUnsignedLong(a.get(U32, IbvPortAttr.MAX_MSG_SZ_OFFSET)),
            Short.toUnsignedInt(a.get(U16, IbvPortAttr.PKEY_TBL_LEN_OFFSET)),
            Short.toUnsignedInt(a.get(U16, IbvPortAttr.LID_OFFSET)),
            Short.toUnsignedInt(a.get(U16, IbvPortAttr.SM_LID_OFFSET)),
            Byte.toUnsignedInt(a.get(U8, IbvPortAttr.LMC_OFFSET)),
            Byte.toUnsignedInt(a.get(U8, IbvPortAttr.ACTIVE_WIDTH_OFFSET)),
            Byte.toUnsignedInt(a.get(U8, IbvPortAttr.ACTIVE_SPEED_OFFSET)),
            Byte.toUnsignedInt(a.get(U8, IbvPortAttr.PHYS_STATE_OFFSET)),
            Byte.toUnsignedInt(a.get(U8, IbvPortAttr.LINK_LAYER_OFFSET)));
    }

    /** {@return whether the port state is {@code IBV_PORT_ACTIVE}} */
    public boolean isActive()
    {
        return state == IbvPortAttr.IBV_PORT_ACTIVE;
    }

    /**
     * RoCE: addressing by GID with a GRH on every packet; no LIDs.
     *
     * @return whether the link layer is Ethernet
     */
    public boolean isEthernet()
    {
        return linkLayer == IbvPortAttr.IBV_LINK_LAYER_ETHERNET;
    }

    /** {@return active MTU in bytes ({@code 256 << (activeMtu - 1)})} */
    public int activeMtuBytes()
    {
        return 128 << activeMtu;
    }
}
