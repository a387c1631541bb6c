// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvFlow;
import io.mlx5j.bindings.IbvFlowAttr;
import io.mlx5j.bindings.IbvFlowEthFilter;
import io.mlx5j.bindings.IbvFlowIpv4Filter;
import io.mlx5j.bindings.IbvFlowIpv6Filter;
import io.mlx5j.bindings.IbvFlowSpecActionDrop;
import io.mlx5j.bindings.IbvFlowSpecActionTag;
import io.mlx5j.bindings.IbvFlowSpecEth;
import io.mlx5j.bindings.IbvFlowSpecIpv4;
import io.mlx5j.bindings.IbvFlowSpecIpv6;
import io.mlx5j.bindings.IbvFlowSpecTcpUdp;
import io.mlx5j.bindings.IbvFlowTcpUdpFilter;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.direct.Completion;
import io.mlx5j.verbs.NativeResource;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.verbs.internal.NativeObject;
import io.mlx5j.verbs.internal.VerbsAccess;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A steering rule ({@code ibv_create_flow}): frames arriving on a port that match every spec of the rule are
 * delivered to the receive queue of a RAW_PACKET QP (or dropped, or tagged). Built with {@link #builder(QueuePair,
 * int)}; closing the rule ({@code ibv_destroy_flow}) stops the steering. A rule depends on its QP: closing the QP
 * closes its rules first (the kernel refuses to destroy a QP that flows still point at).
 * <pre>{@code
 * try (FlowRule rule = FlowRule.builder(qp, 1).multicast(group).udpDst(port).tag(7).create()) { ... }
 * }</pre>
 * Spec values are given as numbers (MAC: the 48-bit number whose most significant byte is first on the wire; IPv4:
 * the 32-bit number of the dotted quad; ports as numbers) and stored in network byte order, as the kernel matches
 * them. Every spec has a mask; the short forms match the whole field.
 * <p>
 * Errors name what was refused: a field out of range is an {@link IllegalArgumentException} naming the field; a
 * rule the kernel refuses is a {@link VerbsException} naming the first spec whose addition makes the kernel refuse
 * it (found by creating and at once destroying the rule's prefixes, so the report costs a few calls but only on
 * failure).
 */
public final class FlowRule implements AutoCloseable
{
    private static final VerbsAccess VERBS = VerbsAccess.get();
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long FULL_MAC = 0xffff_ffff_ffffL;

    private final QueuePair qp;
    private final String description;
    /**
     * The {@code ibv_flow}, owned by the control path's rules: registered with the QP's Context, a dependent of the
     * QP (closed first when the QP closes), its segment failing once closed.
     */
    private final NativeResource flow;

    private FlowRule(final QueuePair qp, final Arena arena, final MemorySegment handle, final String description)
    {
        this.qp = qp;
        this.description = description;
        this.flow = VERBS.adopt(qp, arena, handle, new Flow(this));
    }

    /**
     * A rule steering to {@code qp} (a RAW_PACKET QP in INIT or later) on {@code port}.
     *
     * @param qp   the RAW_PACKET QP matching frames go to
     * @param port the device port the frames arrive on, 1..255
     * @return a builder with no specs yet
     * @throws IllegalArgumentException if {@code qp} is not RAW_PACKET or {@code port} is out of range
     */
    public static Builder builder(final QueuePair qp, final int port)
    {
        return new Builder(qp, port);
    }

    /**
     * The QP the rule steers to.
     *
     * @return the RAW_PACKET QP given to {@link #builder}
     */
    public QueuePair queuePair()
    {
        return qp;
    }

    /**
     * Whether the rule is destroyed (by {@link #close()}, or with its QP or Context).
     *
     * @return true once destroyed
     */
    public boolean isClosed()
    {
        return flow.isClosed();
    }

    /**
     * The {@code struct ibv_flow *}, scoped to the rule (see {@link NativeResource#pointer()}).
     *
     * @return the native pointer, failing on access once the rule is closed
     * @throws IllegalStateException if the rule is closed
     */
    public MemorySegment pointer()
    {
        return flow.pointer();
    }

    /**
     * Stops the steering ({@code ibv_destroy_flow}); a second close does nothing.
     *
     * @throws VerbsException if {@code ibv_destroy_flow} fails
     */
    @Override
    public void close()
    {
        flow.close();
    }

    @Override
    public String toString()
    {
        return "FlowRule(" + description + " -> qpn 0x" + Integer.toHexString(qp.qpn()) + (isClosed() ? ", closed)" :
            ")");
    }

    /** The rule's native object, for {@link VerbsAccess#adopt}. */
    private static final class Flow implements NativeObject
    {
        private final FlowRule rule;

        Flow(final FlowRule rule)
        {
            this.rule = rule;
        }

        @Override
        public int destroy(final MemorySegment address)
        {
            return InlineVerbs.ibv_destroy_flow(address.reinterpret(IbvFlow.LAYOUT.byteSize()));
        }

        @Override
        public String destroyCall()
        {
            return "ibv_destroy_flow";
        }

        @Override
        public String describe()
        {
            return rule.toString();
        }
    }

    /** One spec, encoded when the rule is created. */
    private interface Spec
    {
        long size();

        void write(MemorySegment at);

        String describe();
    }

    /** Collects specs in order (L2, L3, L4, actions: the order the kernel expects). Not thread-safe. */
    public static final class Builder
    {
        private final QueuePair qp;
        private final int port;
        private final List<Spec> specs = new ArrayList<>();
        private int type = IbvFlowAttr.IBV_FLOW_ATTR_NORMAL;
        private int priority;
        private int flags;

        private Builder(final QueuePair qp, final int port)
        {
            if (qp.type() != QpType.RAW_PACKET)
            {
                throw new IllegalArgumentException("flow rules steer to RAW_PACKET QPs: " + qp);
            }
            if (port < 1 || port > 255)
            {
                throw new IllegalArgumentException("port: " + port + " (1..255)");
            }
            this.qp = qp;
            this.port = port;
        }

        /**
         * Rule priority, 0 first (ibv_flow_attr.priority); default 0.
         *
         * @param priority 0..65535
         * @return this builder
         * @throws IllegalArgumentException if {@code priority} is out of range
         */
        public Builder priority(final int priority)
        {
            if (priority < 0 || priority > 0xffff)
            {
                throw new IllegalArgumentException("priority: " + priority + " (0..65535)");
            }
            this.priority = priority;
            return this;
        }

        /**
         * Receive every frame of the port, alongside normal steering (IBV_FLOW_ATTR_SNIFFER); takes no specs.
         *
         * @return this builder
         */
        public Builder sniffer()
        {
            type = IbvFlowAttr.IBV_FLOW_ATTR_SNIFFER;
            return this;
        }

        /**
         * Receive every frame no other rule takes (IBV_FLOW_ATTR_ALL_DEFAULT).
         *
         * @return this builder
         */
        public Builder allDefault()
        {
            type = IbvFlowAttr.IBV_FLOW_ATTR_ALL_DEFAULT;
            return this;
        }

        /**
         * Receive every multicast frame no other rule takes (IBV_FLOW_ATTR_MC_DEFAULT).
         *
         * @return this builder
         */
        public Builder multicastDefault()
        {
            type = IbvFlowAttr.IBV_FLOW_ATTR_MC_DEFAULT;
            return this;
        }

        /**
         * Match but also let the frame continue to lower-priority rules (IBV_FLOW_ATTR_FLAGS_DONT_TRAP).
         *
         * @return this builder
         */
        public Builder dontTrap()
        {
            flags |= IbvFlowAttr.IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
            return this;
        }

        /**
         * L2 match with masks; an all-zero mask leaves a field unmatched.
         *
         * @param dstMac        destination MAC, a 48-bit number (first wire byte most significant)
         * @param dstMask       its mask, 48 bits
         * @param srcMac        source MAC, 48 bits
         * @param srcMask       its mask, 48 bits
         * @param etherType     EtherType, 16 bits (e.g. 0x0800 for IPv4)
         * @param etherTypeMask its mask, 16 bits
         * @param vlanTag       the VLAN TCI (PCP, DEI, VLAN ID), 16 bits
         * @param vlanTagMask   its mask, 16 bits
         * @return this builder
         * @throws IllegalArgumentException naming the first field that does not fit its width
         */
        public Builder eth(final long dstMac, final long dstMask, final long srcMac, final long srcMask,
            final int etherType, final int etherTypeMask, final int vlanTag, final int vlanTagMask)
        {
            mac("eth dst_mac", dstMac);
            mac("eth dst_mac mask", dstMask);
            mac("eth src_mac", srcMac);
            mac("eth src_mac mask", srcMask);
            u16("eth ether_type", etherType);
            u16("eth ether_type mask", etherTypeMask);
            u16("eth vlan_tag", vlanTag);
            u16("eth vlan_tag mask", vlanTagMask);
            specs.add(new Spec()
            {
                public long size()
                {
                    return IbvFlowSpecEth.LAYOUT.byteSize();
                }

                public void write(final MemorySegment at)
                {
                    header(at, IbvFlowAttr.IBV_FLOW_SPEC_ETH, size());
                    ethFilter(at.asSlice(IbvFlowSpecEth.VAL_OFFSET), dstMac, srcMac, etherType, vlanTag);
                    ethFilter(at.asSlice(IbvFlowSpecEth.MASK_OFFSET), dstMask, srcMask, etherTypeMask, vlanTagMask);
                }

                public String describe()
                {
                    return "eth(dst " + macString(dstMac) + "/" + macString(dstMask) + ", src " + macString(srcMac) +
                        "/" + macString(srcMask) + ", ether_type 0x" + Integer.toHexString(etherType) + "/0x" +
                        Integer.toHexString(etherTypeMask) + ", vlan 0x" + Integer.toHexString(vlanTag) + "/0x" +
                        Integer.toHexString(vlanTagMask) + ")";
                }
            });
            return this;
        }

        /**
         * Frames to this destination MAC (full mask; other L2 fields unmatched).
         *
         * @param dstMac destination MAC, a 48-bit number (first wire byte most significant)
         * @return this builder
         * @throws IllegalArgumentException if {@code dstMac} does not fit 48 bits
         */
        public Builder ethDst(final long dstMac)
        {
            return eth(dstMac, FULL_MAC, 0, 0, 0, 0, 0, 0);
        }

        /**
         * Frames of an IPv4 multicast group: its Ethernet MAC (01:00:5e + low 23 bits) and the group address.
         *
         * @param group the group address as the 32-bit number of the dotted quad, in 224.0.0.0/4
         * @return this builder
         * @throws IllegalArgumentException if {@code group} is not a multicast address
         */
        public Builder multicast(final int group)
        {
            if ((group >>> 28) != 0xe)
            {
                throw new IllegalArgumentException("ipv4 dst_ip: " + ipString(group) + " is not a multicast group " +
                    "(224.0.0.0/4)");
            }
            ethDst(0x01005e000000L | (group & 0x7fffffL));
            return ipv4(0, 0, group, -1);
        }

        /**
         * IPv4 source/destination with masks; a zero mask leaves the address unmatched.
         *
         * @param src     source address, the 32-bit number of the dotted quad
         * @param srcMask its mask
         * @param dst     destination address
         * @param dstMask its mask
         * @return this builder
         */
        public Builder ipv4(final int src, final int srcMask, final int dst, final int dstMask)
        {
            specs.add(new Spec()
            {
                public long size()
                {
                    return IbvFlowSpecIpv4.LAYOUT.byteSize();
                }

                public void write(final MemorySegment at)
                {
                    header(at, IbvFlowAttr.IBV_FLOW_SPEC_IPV4, size());
                    at.set(BE32, IbvFlowSpecIpv4.VAL_OFFSET + IbvFlowIpv4Filter.SRC_IP_OFFSET, src);
                    at.set(BE32, IbvFlowSpecIpv4.VAL_OFFSET + IbvFlowIpv4Filter.DST_IP_OFFSET, dst);
                    at.set(BE32, IbvFlowSpecIpv4.MASK_OFFSET + IbvFlowIpv4Filter.SRC_IP_OFFSET, srcMask);
                    at.set(BE32, IbvFlowSpecIpv4.MASK_OFFSET + IbvFlowIpv4Filter.DST_IP_OFFSET, dstMask);
                }

                public String describe()
                {
                    return "ipv4(src " + ipString(src) + "/" + ipString(srcMask) + ", dst " + ipString(dst) + "/" +
                        ipString(dstMask) + ")";
                }
            });
            return this;
        }

        /**
         * IPv4 frames to this address (full mask, any source).
         *
         * @param dst destination address, the 32-bit number of the dotted quad
         * @return this builder
         */
        public Builder ipv4Dst(final int dst)
        {
            return ipv4(0, 0, dst, -1);
        }

        /**
         * IPv6 with masks: addresses as 16 wire-order bytes each (null: zero), flow label (20 bits), next header.
         * Traffic class and hop limit are left unmatched.
         *
         * @param src           source address, 16 bytes or null (copied)
         * @param srcMask       its mask, 16 bytes or null
         * @param dst           destination address, 16 bytes or null
         * @param dstMask       its mask, 16 bytes or null
         * @param flowLabel     flow label, 20 bits
         * @param flowLabelMask its mask, 20 bits
         * @param nextHdr       next header (e.g. 17 for UDP), 8 bits
         * @param nextHdrMask   its mask, 8 bits
         * @return this builder
         * @throws IllegalArgumentException naming the first field that is not 16 bytes or does not fit its width
         */
        public Builder ipv6(final byte[] src, final byte[] srcMask, final byte[] dst, final byte[] dstMask,
            final int flowLabel, final int flowLabelMask, final int nextHdr, final int nextHdrMask)
        {
            addr16("ipv6 src_ip", src);
            addr16("ipv6 src_ip mask", srcMask);
            addr16("ipv6 dst_ip", dst);
            addr16("ipv6 dst_ip mask", dstMask);
            if ((flowLabel & ~0xfffff) != 0 || (flowLabelMask & ~0xfffff) != 0)
            {
                throw new IllegalArgumentException("ipv6 flow_label: 0x" + Integer.toHexString(flowLabel) + "/0x" +
                    Integer.toHexString(flowLabelMask) + " (20 bits)");
            }
            u8("ipv6 next_hdr", nextHdr);
            u8("ipv6 next_hdr mask", nextHdrMask);
            final byte[] s = copy16(src);
            final byte[] sm = copy16(srcMask);
            final byte[] d = copy16(dst);
            final byte[] dm = copy16(dstMask);
            specs.add(new Spec()
            {
                public long size()
                {
                    return IbvFlowSpecIpv6.LAYOUT.byteSize();
                }

                public void write(final MemorySegment at)
                {
                    header(at, IbvFlowAttr.IBV_FLOW_SPEC_IPV6, size());
                    ipv6Filter(at.asSlice(IbvFlowSpecIpv6.VAL_OFFSET), s, d, flowLabel, nextHdr);
                    ipv6Filter(at.asSlice(IbvFlowSpecIpv6.MASK_OFFSET), sm, dm, flowLabelMask, nextHdrMask);
                }

                public String describe()
                {
                    return "ipv6(flow_label 0x" + Integer.toHexString(flowLabel) + "/0x" +
                        Integer.toHexString(flowLabelMask) + ", next_hdr " + nextHdr + "/" + nextHdrMask + ")";
                }
            });
            return this;
        }

        /**
         * UDP ports with masks; a zero mask leaves the port unmatched.
         *
         * @param dstPort destination port, 16 bits
         * @param dstMask its mask
         * @param srcPort source port, 16 bits
         * @param srcMask its mask
         * @return this builder
         * @throws IllegalArgumentException naming the first field that does not fit 16 bits
         */
        public Builder udp(final int dstPort, final int dstMask, final int srcPort, final int srcMask)
        {
            return l4(IbvFlowAttr.IBV_FLOW_SPEC_UDP, "udp", dstPort, dstMask, srcPort, srcMask);
        }

        /**
         * UDP datagrams to this port (full mask, any source port).
         *
         * @param dstPort destination port, 0..65535
         * @return this builder
         * @throws IllegalArgumentException if {@code dstPort} does not fit 16 bits
         */
        public Builder udpDst(final int dstPort)
        {
            return udp(dstPort, 0xffff, 0, 0);
        }

        /**
         * TCP ports with masks; a zero mask leaves the port unmatched.
         *
         * @param dstPort destination port, 16 bits
         * @param dstMask its mask
         * @param srcPort source port, 16 bits
         * @param srcMask its mask
         * @return this builder
         * @throws IllegalArgumentException naming the first field that does not fit 16 bits
         */
        public Builder tcp(final int dstPort, final int dstMask, final int srcPort, final int srcMask)
        {
            return l4(IbvFlowAttr.IBV_FLOW_SPEC_TCP, "tcp", dstPort, dstMask, srcPort, srcMask);
        }

        private Builder l4(final int specType, final String name, final int dstPort, final int dstMask,
            final int srcPort, final int srcMask)
        {
            u16(name + " dst_port", dstPort);
            u16(name + " dst_port mask", dstMask);
            u16(name + " src_port", srcPort);
            u16(name + " src_port mask", srcMask);
            specs.add(new Spec()
            {
                public long size()
                {
                    return IbvFlowSpecTcpUdp.LAYOUT.byteSize();
                }

                public void write(final MemorySegment at)
                {
                    header(at, specType, size());
                    at.set(BE16, IbvFlowSpecTcpUdp.VAL_OFFSET + IbvFlowTcpUdpFilter.DST_PORT_OFFSET, (short) dstPort);
                    at.set(BE16, IbvFlowSpecTcpUdp.VAL_OFFSET + IbvFlowTcpUdpFilter.SRC_PORT_OFFSET, (short) srcPort);
                    at.set(BE16, IbvFlowSpecTcpUdp.MASK_OFFSET + IbvFlowTcpUdpFilter.DST_PORT_OFFSET, (short) dstMask);
                    at.set(BE16, IbvFlowSpecTcpUdp.MASK_OFFSET + IbvFlowTcpUdpFilter.SRC_PORT_OFFSET, (short) srcMask);
                }

                public String describe()
                {
                    return name + "(dst_port " + dstPort + "/0x" + Integer.toHexString(dstMask) + ", src_port " +
                        srcPort + "/0x" + Integer.toHexString(srcMask) + ")";
                }
            });
            return this;
        }

        /**
         * Matching frames carry {@code tagId} in their CQE ({@link Completion#flowTag()}).
         *
         * @param tagId the tag, 24 bits
         * @return this builder
         * @throws IllegalArgumentException if {@code tagId} does not fit 24 bits
         */
        public Builder tag(final int tagId)
        {
            // mlx5 keeps the tag in the CQE's low 24 bits (MLX5_FLOW_TAG_MASK); the kernel refuses larger ones
            if ((tagId & ~0xffffff) != 0)
            {
                throw new IllegalArgumentException("flow_tag tag_id: 0x" + Integer.toHexString(tagId) +
                    " does not fit the CQE's 24 bits");
            }
            specs.add(new Spec()
            {
                public long size()
                {
                    return IbvFlowSpecActionTag.LAYOUT.byteSize();
                }

                public void write(final MemorySegment at)
                {
                    header(at, IbvFlowAttr.IBV_FLOW_SPEC_ACTION_TAG, size());
                    at.set(ValueLayout.JAVA_INT_UNALIGNED, IbvFlowSpecActionTag.TAG_ID_OFFSET, tagId);
                }

                public String describe()
                {
                    return "tag(" + tagId + ")";
                }
            });
            return this;
        }

        /**
         * Matching frames are discarded (IBV_FLOW_SPEC_ACTION_DROP).
         *
         * @return this builder
         */
        public Builder drop()
        {
            specs.add(new Spec()
            {
                public long size()
                {
                    return IbvFlowSpecActionDrop.LAYOUT.byteSize();
                }

                public void write(final MemorySegment at)
                {
                    header(at, IbvFlowAttr.IBV_FLOW_SPEC_ACTION_DROP, size());
                }

                public String describe()
                {
                    return "drop";
                }
            });
            return this;
        }

        /**
         * Creates the rule: {@code ibv_create_flow}.
         *
         * @return the rule, steering until closed
         * @throws IllegalStateException if the QP is closed
         * @throws VerbsException if the kernel refuses the rule, naming the first spec that makes it refuse
         */
        public FlowRule create()
        {
            synchronized (VERBS.lock(qp))
            {
                qp.pointer();   // throws if the QP is closed
                final Arena arena = Arena.ofShared();
                try
                {
                    final MemorySegment state = CallState.allocate(arena);
                    final MemorySegment flow = attempt(state, arena, specs.size());
                    if (flow.address() == 0)
                    {
                        final int errno = CallState.errno(state);
                        throw new VerbsException("ibv_create_flow", errno, culprit() + " (rule " + describe() +
                            " on port " + port + " for " + qp + ")");
                    }
                    return new FlowRule(qp, arena, flow.reinterpret(IbvFlow.LAYOUT.byteSize(), arena, null),
                        describe());
                }
                catch (final RuntimeException ex)
                {
                    arena.close();
                    throw ex;
                }
            }
        }

        /** ibv_create_flow with the first {@code n} specs; NULL on failure (errno in {@code state}). */
        private MemorySegment attempt(final MemorySegment state, final Arena arena, final int n)
        {
            long size = IbvFlowAttr.LAYOUT.byteSize();
            for (int i = 0; i < n; i++)
            {
                size += specs.get(i).size();
            }
            final MemorySegment attr = arena.allocate(size, 8);
            attr.set(ValueLayout.JAVA_INT, IbvFlowAttr.TYPE_OFFSET, type);
            attr.set(ValueLayout.JAVA_SHORT, IbvFlowAttr.SIZE_OFFSET, (short) size);
            attr.set(ValueLayout.JAVA_SHORT, IbvFlowAttr.PRIORITY_OFFSET, (short) priority);
            attr.set(ValueLayout.JAVA_BYTE, IbvFlowAttr.NUM_OF_SPECS_OFFSET, (byte) n);
            attr.set(ValueLayout.JAVA_BYTE, IbvFlowAttr.PORT_OFFSET, (byte) port);
            attr.set(ValueLayout.JAVA_INT, IbvFlowAttr.FLAGS_OFFSET, flags);
            long at = IbvFlowAttr.LAYOUT.byteSize();
            for (int i = 0; i < n; i++)
            {
                specs.get(i).write(attr.asSlice(at, specs.get(i).size()));
                at += specs.get(i).size();
            }
            return InlineVerbs.ibv_create_flow(state, qp.pointer(), attr);
        }

        /** The first spec whose addition the kernel refuses: prefixes are created and destroyed again. */
        private String culprit()
        {
            try (Arena tmp = Arena.ofConfined())
            {
                for (int n = 0; n < specs.size(); n++)
                {
                    final MemorySegment state = CallState.allocate(tmp);
                    final MemorySegment flow = attempt(state, tmp, n);
                    if (flow.address() == 0)
                    {
                        return n == 0 ? "the rule itself is refused (type " + type + ", priority " + priority +
                            ", flags 0x" + Integer.toHexString(flags) + ", port " + port + ")"
                            : "refused at spec " + specs.get(n - 1).describe();
                    }
                    InlineVerbs.ibv_destroy_flow(flow.reinterpret(IbvFlow.LAYOUT.byteSize()));
                }
                return specs.isEmpty() ? "the rule itself is refused" : "refused at spec " +
                    specs.get(specs.size() - 1).describe();
            }
        }

        private String describe()
        {
            final StringBuilder sb = new StringBuilder();
            sb.append(switch (type)
            {
                case IbvFlowAttr.IBV_FLOW_ATTR_SNIFFER -> "sniffer";
                case IbvFlowAttr.IBV_FLOW_ATTR_ALL_DEFAULT -> "all-default";
                case IbvFlowAttr.IBV_FLOW_ATTR_MC_DEFAULT -> "multicast-default";
                default -> "normal";
            }).append(" prio ").append(priority);
            for (final Spec s : specs)
            {
                sb.append(' ').append(s.describe());
            }
            return sb.toString();
        }
    }

    // ---------------------------------------------------------------- encoding helpers

    private static void header(final MemorySegment at, final int type, final long size)
    {
        at.set(ValueLayout.JAVA_INT_UNALIGNED, 0, type);
        at.set(ValueLayout.JAVA_SHORT_UNALIGNED, 4, (short) size);
    }

    private static void ethFilter(final MemorySegment f, final long dst, final long src, final int etherType,
        final int vlan)
    {
        putMac(f, IbvFlowEthFilter.DST_MAC_OFFSET, dst);
        putMac(f, IbvFlowEthFilter.SRC_MAC_OFFSET, src);
        f.set(BE16, IbvFlowEthFilter.ETHER_TYPE_OFFSET, (short) etherType);
        f.set(BE16, IbvFlowEthFilter.VLAN_TAG_OFFSET, (short) vlan);
    }

    private static void ipv6Filter(final MemorySegment f, final byte[] src, final byte[] dst, final int flowLabel,
        final int nextHdr)
    {
        MemorySegment.copy(src, 0, f, ValueLayout.JAVA_BYTE, IbvFlowIpv6Filter.SRC_IP_OFFSET, 16);
        MemorySegment.copy(dst, 0, f, ValueLayout.JAVA_BYTE, IbvFlowIpv6Filter.DST_IP_OFFSET, 16);
        f.set(BE32, IbvFlowIpv6Filter.FLOW_LABEL_OFFSET, flowLabel);
        f.set(ValueLayout.JAVA_BYTE, IbvFlowIpv6Filter.NEXT_HDR_OFFSET, (byte) nextHdr);
    }

    private static void putMac(final MemorySegment f, final long at, final long mac)
    {
        f.set(BE16, at, (short) (mac >>> 32));
        f.set(BE32, at + 2, (int) mac);
    }

    private static void mac(final String field, final long mac)
    {
        if ((mac & ~FULL_MAC) != 0)
        {
            throw new IllegalArgumentException(field + ": 0x" + Long.toHexString(mac) + " is not a 48-bit MAC");
        }
    }

    private static void u16(final String field, final int v)
    {
        if ((v & ~0xffff) != 0)
        {
            throw new IllegalArgumentException(field + ": " + v + " does not fit 16 bits");
        }
    }

    private static void u8(final String field, final int v)
    {
        if ((v & ~0xff) != 0)
        {
            throw new IllegalArgumentException(field + ": " + v + " does not fit 8 bits");
        }
    }

    private static void addr16(final String field, final byte[] a)
    {
        if (a != null && a.length != 16)
        {
            throw new IllegalArgumentException(field + ": " + a.length + " bytes, an IPv6 address has 16");
        }
    }

    private static byte[] copy16(final byte[] a)
    {
        return a == null ? new byte[16] : a.clone();
    }

    static String macString(final long mac)
    {
        return String.format("%02x:%02x:%02x:%02x:%02x:%02x", (mac >>> 40) & 0xff, (mac >>> 32) & 0xff,
            (mac >>> 24) & 0xff, (mac >>> 16) & 0xff, (mac >>> 8) & 0xff, mac & 0xff);
    }

    static String ipString(final int ip)
    {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xff) + "." + ((ip >>> 8) & 0xff) + "." + (ip & 0xff);
    }
}
