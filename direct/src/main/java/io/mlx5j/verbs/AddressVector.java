// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvAhAttr;
import io.mlx5j.bindings.IbvGlobalRoute;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * Where packets go ({@code struct ibv_ah_attr}): the RTR path of a connected QP, or a UD address handle. InfiniBand
 * routes by LID (a GRH only across subnets); RoCE always needs the GRH: destination GID, source GID index, hop limit.
 *
 * @param port         local port, from 1
 * @param dlid         destination LID (InfiniBand; 0 on RoCE)
 * @param sl           service level
 * @param srcPathBits  source path bits (LMC)
 * @param staticRate   enum ibv_rate; 0 = port rate
 * @param global       carry a GRH (always true on RoCE)
 * @param dgid         destination GID, when global
 * @param flowLabel    GRH flow label
 * @param sgidIndex    index of the local GID to send from, when global
 * @param hopLimit     GRH hop limit
 * @param trafficClass GRH traffic class
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record AddressVector(
    int port,
    int dlid,
    int sl,
    int srcPathBits,
    int staticRate,
    boolean global,
    Gid dgid,
    int flowLabel,
    int sgidIndex,
    int hopLimit,
    int trafficClass)
{
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a component is out of range (port from 1, 16-bit LID, 4-bit SL, ...)
     * @throws NullPointerException if {@code global} is set without {@code dgid}
     */
    public AddressVector
    {
        if (port < 1 || port > 255)
        {
            throw new IllegalArgumentException("port counts from 1, got " + port);
        }
        if (dlid < 0 || dlid > 0xffff)
        {
            throw new IllegalArgumentException("LID is 16 bits, got " + dlid);
        }
        if (global)
        {
            Objects.requireNonNull(dgid, "a global route needs the destination GID");
        }
        check("sl", sl, 15);
        check("srcPathBits", srcPathBits, 127);
        check("staticRate", staticRate, 255);
        check("flowLabel", flowLabel, 0xfffff);
        check("sgidIndex", sgidIndex, 255);
        check("hopLimit", hopLimit, 255);
        check("trafficClass", trafficClass, 255);
    }

    private static void check(final String name, final int value, final int max)
    {
        if (value < 0 || value > max)
        {
            throw new IllegalArgumentException(name + " must be in 0.." + max + ", got " + value);
        }
    }

    /**
     * InfiniBand, same subnet: LID routed, no GRH.
     *
     * @param port local port, from 1
     * @param dlid destination LID
     * @param sl service level
     * @return the address vector
     */
    public static AddressVector ib(final int port, final int dlid, final int sl)
    {
        return new AddressVector(port, dlid, sl, 0, 0, false, null, 0, 0, 0, 0);
    }

    /**
     * RoCE (or IB across subnets): GRH with the destination GID, sent from local GID {@code sgidIndex}.
     *
     * @param port local port, from 1
     * @param dgid destination GID
     * @param sgidIndex index of the local GID to send from
     * @param hopLimit GRH hop limit
     * @param trafficClass GRH traffic class
     * @return the address vector
     */
    public static AddressVector global(final int port, final Gid dgid, final int sgidIndex, final int hopLimit,
        final int trafficClass)
    {
        return new AddressVector(port, 0, 0, 0, 0, true, dgid, 0, sgidIndex, hopLimit, trafficClass);
    }

    /**
     * Reads a {@code struct ibv_ah_attr} at {@code offset} (as libibverbs filled it: an event's, a QP's).
     *
     * @param segment the memory holding the struct
     * @param offset byte offset of the struct in {@code segment}
     * @return the address vector
     */
    public static AddressVector read(final MemorySegment segment, final long offset)
    {
        final boolean global = segment.get(U8, offset + IbvAhAttr.IS_GLOBAL_OFFSET) != 0;
        final long grh = offset + IbvAhAttr.GRH_OFFSET;
        return new AddressVector(
            segment.get(U8, offset + IbvAhAttr.PORT_NUM_OFFSET) & 0xff,
            segment.get(U16, offset + IbvAhAttr.DLID_OFFSET) & 0xffff,
            segment.get(U8, offset + IbvAhAttr.SL_OFFSET) & 0xff,
            segment.get(U8, offset + IbvAhAttr.SRC_PATH_BITS_OFFSET) & 0xff,
            segment.get(U8, offset + IbvAhAttr.STATIC_RATE_OFFSET) & 0xff,
            global,
            global ? Gid.read(segment, grh + IbvGlobalRoute.DGID_OFFSET) : null,
            segment.get(U32, grh + IbvGlobalRoute.FLOW_LABEL_OFFSET),
            segment.get(U8, grh + IbvGlobalRoute.SGID_INDEX_OFFSET) & 0xff,
            segment.get(U8, grh + IbvGlobalRoute.HOP_LIMIT_OFFSET) & 0xff,
            segment.get(U8, grh + IbvGlobalRoute.TRAFFIC_CLASS_OFFSET) & 0xff);
    }

    /** Writes this as a {@code struct ibv_ah_attr} at {@code offset} (the segment must be zeroed). */
    void write(final MemorySegment segment, final long offset)
    {
        if (global)
        {
            final long grh = offset + IbvAhAttr.GRH_OFFSET;
            dgid.write(segment, grh + IbvGlobalRoute.DGID_OFFSET);
            segment.set(U32, grh + IbvGlobalRoute.FLOW_LABEL_OFFSET, flowLabel);
            segment.set(U8, grh + IbvGlobalRoute.SGID_INDEX_OFFSET, (byte) sgidIndex);
            segment.set(U8, grh + IbvGlobalRoute.HOP_LIMIT_OFFSET, (byte) hopLimit);
            segment.set(U8, grh + IbvGlobalRoute.TRAFFIC_CLASS_OFFSET, (byte) trafficClass);
        }
        segment.set(U16, offset + IbvAhAttr.DLID_OFFSET, (short) dlid);
        segment.set(U8, offset + IbvAhAttr.SL_OFFSET, (byte) sl);
        segment.set(U8, offset + IbvAhAttr.SRC_PATH_BITS_OFFSET, (byte) srcPathBits);
        segment.set(U8, offset + IbvAhAttr.STATIC_RATE_OFFSET, (byte) staticRate);
        segment.set(U8, offset + IbvAhAttr.IS_GLOBAL_OFFSET, (byte) (global ? 1 : 0));
        segment.set(U8, offset + IbvAhAttr.PORT_NUM_OFFSET, (byte) port);
    }
}
