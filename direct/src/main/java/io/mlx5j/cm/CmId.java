// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvContext;
import io.mlx5j.bindings.IbvQpAttr;
import io.mlx5j.bindings.RdmaCmId;
import io.mlx5j.bindings.RdmaConnParam;
import io.mlx5j.bindings.Rdmacm;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * A librdmacm identifier ({@code struct rdma_cm_id}), the CM's counterpart of a socket. Every operation here starts
 * a step and returns; its outcome arrives as an event on the {@link EventChannel} (ADDR_RESOLVED, ROUTE_RESOLVED,
 * ESTABLISHED, ...). {@link CmConnection} and {@link CmListener} wrap the usual sequences with timeouts.
 * <p>
 * <b>The QP.</b> mlx5j creates QPs itself ({@link io.mlx5j.verbs.ProtectionDomain#createQp}), so a connected QP is an
 * ordinary {@link QueuePair} that {@code SendQueue}/{@code CqPoller} drive. librdmacm does not own it: the id
 * asks the CM for each transition's attributes ({@code rdma_init_qp_attr}) and applies them with
 * {@code ibv_modify_qp}, at the points where librdmacm would for a QP of its own (see {@code ucma_modify_qp_rtr/rts}
 * and {@code ucma_init_ud_qp} in rdma-core librdmacm/cma.c). The QP must live on the device the id is bound to
 * ({@link #deviceName()}, {@link #port()}).
 * <p>
 * Closing the id ({@code rdma_destroy_id}) does not close the QP.
 */
public final class CmId implements AutoCloseable
{
    private static final AtomicLong SERIALS = new AtomicLong();
    /**
     * Bits 21..23 of the attribute mask rdma_init_qp_attr returns: the kernel's own IB_QP_SMAC/ALT_SMAC/VID bits,
     * which enum ibv_qp_attr_mask does not define; librdmacm clears them before ibv_modify_qp (ucma_modify_qp_rtr).
     */
    private static final int KERNEL_ONLY_MASK_BITS = 0xe00000;

    private final EventChannel channel;
    private final Arena arena;
    private final MemorySegment handle;
    private final PortSpace portSpace;
    private final long serial = SERIALS.incrementAndGet();
    private final ArrayDeque<CmEvent> queue = new ArrayDeque<>();
    /** Joins not yet answered, by the context handed to rdma_join_multicast; joined groups. */
    private final java.util.Map<Long, InetAddress> pendingJoins = new java.util.HashMap<>();
    private final java.util.Map<InetAddress, Membership> groups = new java.util.HashMap<>();
    private long joins;
    private volatile QueuePair qp;
    private int responderResources = RdmaCmId.RDMA_MAX_RESP_RES;
    private int initiatorDepth = RdmaCmId.RDMA_MAX_INIT_DEPTH;
    private volatile boolean closed;
    /** rdma_disconnect was called (by the application, or in answer to the peer's DISCONNECTED). */
    private volatile boolean disconnectSent;

    private CmId(final EventChannel channel, final Arena arena, final MemorySegment handle, final PortSpace portSpace)
    {
        this.channel = channel;
        this.arena = arena;
        this.handle = handle;
        this.portSpace = portSpace;
        channel.register(this);
    }

    static CmId create(final EventChannel channel, final PortSpace portSpace)
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment out = arena.allocate(C_POINTER);
            if (Rdmacm.rdma_create_id(state, channel.handle(), out, MemorySegment.NULL, portSpace.value()) != 0)
            {
                throw new CmCallException("create id", "rdma_create_id", CallState.errno(state));
            }
            return new CmId(channel, arena, out.get(C_POINTER, 0).reinterpret(RdmaCmId.LAYOUT.byteSize(), arena, null),
                portSpace);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** Wraps the id librdmacm created for an incoming CONNECT_REQUEST. */
    static CmId adopt(final EventChannel channel, final MemorySegment raw, final PortSpace portSpace)
    {
        final Arena arena = Arena.ofShared();
        return new CmId(channel, arena, raw.reinterpret(RdmaCmId.LAYOUT.byteSize(), arena, null), portSpace);
    }

    long address()
    {
        return handle.address();
    }

    long serial()
    {
        return serial;
    }

    /**
     * The channel this id reports its events to.
     *
     * @return the channel the id was created on
     */
    public EventChannel channel()
    {
        return channel;
    }

    /**
     * The port space the id was created in.
     *
     * @return TCP for RC, UDP or IPOIB for UD ids
     */
    public PortSpace portSpace()
    {
        return portSpace;
    }

    /**
     * The native {@code struct rdma_cm_id *}, for calls mlx5j does not wrap. Invalid after close.
     *
     * @return the {@code struct rdma_cm_id *}
     * @throws IllegalStateException if the id is closed
     */
    public MemorySegment pointer()
    {
        ensureOpen();
        return handle;
    }

    /**
     * The RDMA device the id is bound to (e.g. {@code mlx5_0}), or null before an address is bound/resolved.
     *
     * @return the device name, or null
     * @throws IllegalStateException if the id is closed
     */
    public String deviceName()
    {
        ensureOpen();
        final MemorySegment verbs = handle.get(C_POINTER, RdmaCmId.VERBS_OFFSET);
        if (verbs.address() == 0)
        {
            return null;
        }
        final MemorySegment device =
            verbs.reinterpret(IbvContext.LAYOUT.byteSize()).get(C_POINTER, IbvContext.DEVICE_OFFSET);
        return Verbs.ibv_get_device_name(device).reinterpret(Long.MAX_VALUE).getString(0);
    }

    /**
     * The device port the id is bound to (from 1), 0 before.
     *
     * @return the port number
     * @throws IllegalStateException if the id is closed
     */
    public int port()
    {
        ensureOpen();
        return handle.get(U8, RdmaCmId.PORT_NUM_OFFSET) & 0xff;
    }

    /**
     * The local address ({@code route.addr.src_addr}).
     *
     * @return the IP address and port, or null before one is bound
     * @throws IllegalStateException if the id is closed
     */
    public InetSocketAddress localAddress()
    {
        ensureOpen();
        return SocketAddresses.read(handle, RdmaCmId.SRC_ADDR_OFFSET);
    }

    /**
     * The peer's address ({@code route.addr.dst_addr}).
     *
     * @return the IP address and port, or null before one is resolved
     * @throws IllegalStateException if the id is closed
     */
    public InetSocketAddress remoteAddress()
    {
        ensureOpen();
        return SocketAddresses.read(handle, RdmaCmId.DST_ADDR_OFFSET);
    }

    /**
     * The local GID the address resolved to ({@code route.addr.addr.ibaddr.sgid}).
     *
     * @return the GID, valid after ADDR_RESOLVED
     * @throws IllegalStateException if the id is closed
     */
    public Gid sourceGid()
    {
        ensureOpen();
        return Gid.read(handle, RdmaCmId.SGID_OFFSET);
    }

    /**
     * The peer's GID ({@code route.addr.addr.ibaddr.dgid}).
     *
     * @return the GID, valid after ADDR_RESOLVED
     * @throws IllegalStateException if the id is closed
     */
    public Gid destinationGid()
    {
        ensureOpen();
        return Gid.read(handle, RdmaCmId.DGID_OFFSET);
    }

    /**
     * The QP attached by {@link #connect}, {@link #accept} or {@link #attachDatagramQp}, or null.
     *
     * @return the QP; the id does not own it
     */
    public QueuePair qp()
    {
        return qp;
    }

    /**
     * {@code rdma_bind_addr}: a local address (port 0 picks one) for a listener or a connect from it.
     *
     * @param address the local IP address (wildcard: any device) and port
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_bind_addr} fails (EADDRINUSE, EADDRNOTAVAIL, ...)
     */
    public void bind(final InetSocketAddress address)
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("bind " + address, "rdma_bind_addr", Rdmacm.rdma_bind_addr(st, pointer(),
                SocketAddresses.write(tmp, address)), st);
        }
    }

    /**
     * {@code rdma_resolve_addr}: starts resolving {@code destination} to a device, port and GIDs; ADDR_RESOLVED or
     * ADDR_ERROR follows, the latter at the latest after {@code timeout}.
     *
     * @param source local address to bind to first, or null
     *
     * @param destination the peer's IP address and port
     * @param timeout     handed to librdmacm, in whole milliseconds
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_resolve_addr} fails; the outcome of a started step comes as an event
     */
    public void resolveAddress(final InetSocketAddress source, final InetSocketAddress destination,
        final Duration timeout)
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("resolve address " + destination, "rdma_resolve_addr", Rdmacm.rdma_resolve_addr(st, pointer(),
                source == null ? MemorySegment.NULL : SocketAddresses.write(tmp, source),
                SocketAddresses.write(tmp, destination), (int) timeout.toMillis()), st);
        }
    }

    /**
     * {@code rdma_resolve_route}: ROUTE_RESOLVED or ROUTE_ERROR follows, at the latest after {@code timeout}.
     *
     * @param timeout handed to librdmacm, in whole milliseconds
     * @throws IllegalStateException if the id is closed, or its address is not resolved yet (no ADDR_RESOLVED seen)
     * @throws CmCallException if {@code rdma_resolve_route} fails; the outcome of a started step comes as an event
     */
    public void resolveRoute(final Duration timeout)
    {
        ensureOpen();
        if (handle.get(C_POINTER, RdmaCmId.VERBS_OFFSET).address() == 0)
        {
            // librdmacm's rdma_resolve_route reads the id's device before anything else: without one the process dies
            throw new IllegalStateException("resolve route on " + this + " before its address is resolved: wait for " +
                "ADDR_RESOLVED after resolveAddress");
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("resolve route", "rdma_resolve_route", Rdmacm.rdma_resolve_route(st, pointer(),
                (int) timeout.toMillis()), st);
        }
    }

    /**
     * {@code rdma_listen}: CONNECT_REQUEST events follow, each with a new id.
     *
     * @param backlog the most requests pending before they are answered
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_listen} fails
     */
    public void listen(final int backlog)
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("listen", "rdma_listen", Rdmacm.rdma_listen(st, pointer(), backlog), st);
        }
    }

    /**
     * Starts a connection with {@code qp} (created in RESET on this id's device): moves it to INIT and sends the
     * request ({@code rdma_connect}). For a connected port space ESTABLISHED follows (the channel completes the QP
     * to RTS on the CM's response), or REJECTED / UNREACHABLE / CONNECT_ERROR. For a datagram port space the QP goes
     * to RTS at once and ESTABLISHED brings the peer's address, QPN and Q_Key (SIDR).
     *
     * @param qp      RC (UD for a datagram port space), in RESET, on {@link #deviceName()}
     * @param options private data, responder resources, initiator depth and retry counts sent
     * @throws IllegalArgumentException if the QP's type does not match the port space
     * @throws IllegalStateException if the id is closed or already has another QP
     * @throws CmCallException if a QP transition or {@code rdma_connect} fails
     */
    public void connect(final QueuePair qp, final ConnectOptions options)
    {
        connect(qp, options, null);
    }

    /**
     * {@link #connect(QueuePair, ConnectOptions)} with a hook that runs once the QP can take receives (INIT, or RTS
     * for datagram ids) and before the request leaves: post the receives the peer's first messages need there.
     *
     * @param qp             RC (UD for a datagram port space), in RESET, on {@link #deviceName()}
     * @param options        private data, responder resources, initiator depth and retry counts sent
     * @param onReceiveReady runs on the calling thread; may be null
     * @throws IllegalArgumentException if the QP's type does not match the port space
     * @throws IllegalStateException if the id is closed or already has another QP
     * @throws CmCallException if a QP transition or {@code rdma_connect} fails
     */
    public void connect(final QueuePair qp, final ConnectOptions options, final Consumer<QueuePair> onReceiveReady)
    {
        attach(qp, options);
        if (portSpace.isDatagram())
        {
            readyDatagramQp(qp);
        }
        else
        {
            modify(qp, IbvQpAttr.IBV_QPS_INIT, "connect: QP to INIT");
        }
        if (onReceiveReady != null)
        {
            onReceiveReady.accept(qp);
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("connect", "rdma_connect", Rdmacm.rdma_connect(st, pointer(), connParam(tmp, qp, options)), st);
        }
    }

    /**
     * Accepts the connection request this id came with: moves {@code qp} through INIT and RTR to RTS with the CM's
     * attributes (datagram: INIT/RTR/RTS with the Q_Key), then {@code rdma_accept}. ESTABLISHED follows.
     *
     * @param qp      RC (UD for a datagram port space), in RESET, on {@link #deviceName()}
     * @param options private data, responder resources and initiator depth sent
     * @throws IllegalArgumentException if the QP's type does not match the port space
     * @throws IllegalStateException if the id is closed or already has another QP
     * @throws CmCallException if a QP transition or {@code rdma_accept} fails
     */
    public void accept(final QueuePair qp, final ConnectOptions options)
    {
        accept(qp, options, null);
    }

    /**
     * {@link #accept(QueuePair, ConnectOptions)} with a hook that runs once the QP is in INIT (before RTR and the
     * accept): post the receives the requester's first messages need there, as rping does before rdma_accept.
     *
     * @param qp             RC (UD for a datagram port space), in RESET, on {@link #deviceName()}
     * @param options        private data, responder resources and initiator depth sent
     * @param onReceiveReady runs on the calling thread; may be null
     * @throws IllegalArgumentException if the QP's type does not match the port space
     * @throws IllegalStateException if the id is closed or already has another QP
     * @throws CmCallException if a QP transition or {@code rdma_accept} fails
     */
    public void accept(final QueuePair qp, final ConnectOptions options, final Consumer<QueuePair> onReceiveReady)
    {
        attach(qp, options);
        if (portSpace.isDatagram())
        {
            readyDatagramQp(qp);
            if (onReceiveReady != null)
            {
                onReceiveReady.accept(qp);
            }
        }
        else
        {
            modify(qp, IbvQpAttr.IBV_QPS_INIT, "accept: QP to INIT");
            if (onReceiveReady != null)
            {
                onReceiveReady.accept(qp);
            }
            modify(qp, IbvQpAttr.IBV_QPS_RTR, "accept: QP to RTR");
            modify(qp, IbvQpAttr.IBV_QPS_RTS, "accept: QP to RTS");
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("accept", "rdma_accept", Rdmacm.rdma_accept(st, pointer(), connParam(tmp, qp, options)), st);
        }
    }

    /**
     * {@code rdma_reject} of the request this id came with; the requester sees REJECTED with this private data.
     *
     * @param privateData at most 255 bytes
     * @throws IllegalArgumentException if {@code privateData} is longer than 255 bytes
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_reject} fails
     */
    public void reject(final byte[] privateData)
    {
        if (privateData.length > 255)
        {
            throw new IllegalArgumentException("private data is at most 255 bytes, got " + privateData.length);
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            final MemorySegment data = privateData.length == 0 ? MemorySegment.NULL : tmp.allocateFrom(
                java.lang.foreign.ValueLayout.JAVA_BYTE, privateData);
            call("reject", "rdma_reject", Rdmacm.rdma_reject(st, pointer(), data, (byte) privateData.length), st);
        }
    }

    /**
     * {@code rdma_disconnect}, and the attached QP to ERR (as librdmacm does for its QPs) so posted work flushes;
     * DISCONNECTED follows on both sides. (When the peer disconnects first, the channel answers its DISCONNECTED
     * with this call itself.)
     *
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_disconnect} fails
     */
    public void disconnect()
    {
        disconnectSent = true;
        final QueuePair attached = qp;
        if (attached != null && !attached.isClosed() && !portSpace.isDatagram())
        {
            attached.toError();
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("disconnect", "rdma_disconnect", Rdmacm.rdma_disconnect(st, pointer()), st);
        }
    }

    /**
     * Readies a UD {@code qp} on this (datagram) id for sending to multicast groups or SIDR peers: INIT with the
     * CM's Q_Key and P_Key index, RTR, RTS (librdmacm's ucma_init_ud_qp).
     *
     * @param qp a UD QP in RESET on {@link #deviceName()}
     * @throws IllegalStateException if this is not a datagram id, is closed or already has another QP
     * @throws IllegalArgumentException if {@code qp} is not UD
     * @throws CmCallException if a QP transition fails
     */
    public void attachDatagramQp(final QueuePair qp)
    {
        if (!portSpace.isDatagram())
        {
            throw new IllegalStateException(this + " is not a datagram id");
        }
        attach(qp, ConnectOptions.DEFAULTS);
        readyDatagramQp(qp);
    }

    /**
     * {@code rdma_join_multicast}: MULTICAST_JOIN follows with the group's address vector, QPN 0xffffff and Q_Key,
     * or MULTICAST_ERROR. When a UD QP is attached to this id ({@link #attachDatagramQp}, before the join), the
     * channel attaches it to the group on MULTICAST_JOIN ({@code ibv_attach_mcast} with the event's MGID and MLID,
     * as librdmacm does for a QP of its own: rdma-core v44 librdmacm/cma.c ucma_process_join), so it receives the
     * group's datagrams; {@link #leaveMulticast} detaches it again.
     *
     * @param group the multicast IP address
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_join_multicast} fails
     */
    public void joinMulticast(final InetAddress group)
    {
        final long context;
        synchronized (this)
        {
            context = ++joins;
            pendingJoins.put(context, group);
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("join multicast " + group.getHostAddress(), "rdma_join_multicast", Rdmacm.rdma_join_multicast(
                st, pointer(), SocketAddresses.write(tmp, new InetSocketAddress(group, 0)),
                MemorySegment.ofAddress(context)), st);
        }
        catch (final RuntimeException ex)
        {
            synchronized (this)
            {
                pendingJoins.remove(context);
            }
            throw ex;
        }
    }

    /**
     * {@code rdma_leave_multicast}, after detaching the attached QP from the group (librdmacm's order).
     *
     * @param group a group joined with {@link #joinMulticast}
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code ibv_detach_mcast} or {@code rdma_leave_multicast} fails
     */
    public void leaveMulticast(final InetAddress group)
    {
        final Membership m;
        synchronized (this)
        {
            m = groups.remove(group);
        }
        final QueuePair attached = qp;
        if (m != null && attached != null && !attached.isClosed())
        {
            try (Arena tmp = Arena.ofConfined())
            {
                final int rc = Verbs.ibv_detach_mcast(attached.pointer(), gidSegment(tmp, m.mgid()), (short) m.mlid());
                if (rc != 0)
                {
                    throw new CmCallException("leave multicast " + group.getHostAddress(), "ibv_detach_mcast", rc);
                }
            }
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            call("leave multicast " + group.getHostAddress(), "rdma_leave_multicast", Rdmacm.rdma_leave_multicast(
                st, pointer(), SocketAddresses.write(tmp, new InetSocketAddress(group, 0))), st);
        }
    }

    /**
     * The groups this id has joined (MULTICAST_JOIN seen, not left).
     *
     * @return a copy, safe to use from any thread
     */
    public synchronized java.util.Set<InetAddress> multicastGroups()
    {
        return java.util.Set.copyOf(groups.keySet());
    }

    /** A joined group: the MGID and MLID the QP is attached with. */
    private record Membership(Gid mgid, int mlid)
    {
    }

    private static MemorySegment gidSegment(final Arena tmp, final Gid gid)
    {
        return tmp.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, gid.toBytes());
    }

    /** MULTICAST_JOIN: the attached UD QP joins the group's MGID/MLID; a failure turns the event into an error. */
    private CmEvent onJoin(final CmEvent event)
    {
        final InetAddress group;
        synchronized (this)
        {
            group = pendingJoins.remove(event.joinContext());
        }
        if (event.type() != CmEventType.MULTICAST_JOIN || group == null)
        {
            return event;
        }
        final QueuePair attached = qp;
        final AddressVector av = event.addressVector();
        final Gid mgid = av.dgid() != null ? av.dgid() : Gid.ZERO;
        if (attached != null && !attached.isClosed())
        {
            try (Arena tmp = Arena.ofConfined())
            {
                final int rc = Verbs.ibv_attach_mcast(attached.pointer(), gidSegment(tmp, mgid), (short) av.dlid());
                if (rc != 0)
                {
                    return event.as(CmEventType.MULTICAST_ERROR, -rc);
                }
            }
        }
        synchronized (this)
        {
            groups.put(group, new Membership(mgid, av.dlid()));
        }
        return event;
    }

    /**
     * RDMA_OPTION_ID_TOS: the IP type of service / traffic class of the connection's packets (before resolving).
     *
     * @param tos 0..255
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_set_option} fails
     */
    public void setTypeOfService(final int tos)
    {
        setOption(RdmaCmId.RDMA_OPTION_ID, RdmaCmId.RDMA_OPTION_ID_TOS, "TOS", tos, 1);
    }

    /**
     * RDMA_OPTION_ID_REUSEADDR (before bind).
     *
     * @param reuse true: bind even while an earlier id's port is in TIME_WAIT
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_set_option} fails
     */
    public void setReuseAddress(final boolean reuse)
    {
        setOption(RdmaCmId.RDMA_OPTION_ID, RdmaCmId.RDMA_OPTION_ID_REUSEADDR, "REUSEADDR", reuse ? 1 : 0, 4);
    }

    /**
     * RDMA_OPTION_ID_AFONLY: an IPv6 listener takes IPv6 only (before bind).
     *
     * @param only true: IPv6 only
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_set_option} fails
     */
    public void setAfOnly(final boolean only)
    {
        setOption(RdmaCmId.RDMA_OPTION_ID, RdmaCmId.RDMA_OPTION_ID_AFONLY, "AFONLY", only ? 1 : 0, 4);
    }

    /**
     * RDMA_OPTION_ID_ACK_TIMEOUT: the QP's local ACK timeout exponent (4.096 µs * 2^n).
     *
     * @param exponent 0..31
     * @throws IllegalStateException if the id is closed
     * @throws CmCallException if {@code rdma_set_option} fails
     */
    public void setAckTimeout(final int exponent)
    {
        setOption(RdmaCmId.RDMA_OPTION_ID, RdmaCmId.RDMA_OPTION_ID_ACK_TIMEOUT, "ACK_TIMEOUT", exponent, 1);
    }

    private void setOption(final int level, final int name, final String what, final int value, final int size)
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            final MemorySegment v = tmp.allocate(4, 4);
            if (size == 1)
            {
                v.set(U8, 0, (byte) value);
            }
            else
            {
                v.set(C_INT, 0, value);
            }
            call("set option " + what, "rdma_set_option", Rdmacm.rdma_set_option(st, pointer(), level, name,
                v, size), st);
        }
    }

    /**
     * Blocking mode: the next event of this id (for a listener, the next CONNECT_REQUEST), or null after
     * {@code timeout}. Reads the shared channel and queues other ids' events for them.
     *
     * @param timeout how long to block the calling thread; ids sharing a channel may wait on different threads
     * @return the event, or null if none came within {@code timeout}
     * @throws IllegalStateException if the id is closed
     */
    public CmEvent awaitEvent(final Duration timeout)
    {
        ensureOpen();
        return channel.awaitFor(this, timeout.toNanos());
    }

    /**
     * Waits for {@code wanted}; any other event ends the step as the matching {@link CmException}, no event within
     * {@code timeout} as a {@link CmTimeoutException}.
     */
    CmEvent expect(final String step, final CmEventType wanted, final Duration timeout)
    {
        final CmEvent event = awaitEvent(timeout);
        if (event == null)
        {
            throw new CmTimeoutException(step, wanted.cName(), timeout);
        }
        if (event.type() != wanted)
        {
            throw CmException.of(step, event);
        }
        return event;
    }

    synchronized void enqueue(final CmEvent event)
    {
        queue.addLast(event);
    }

    synchronized CmEvent dequeue()
    {
        return queue.pollFirst();
    }

    /** Channel hook, before the event is acknowledged: completes an active connect, flushes on disconnect. */
    CmEvent onEvent(final CmEvent event)
    {
        if (event.type() == CmEventType.MULTICAST_JOIN || event.type() == CmEventType.MULTICAST_ERROR)
        {
            return onJoin(event);
        }
        final QueuePair attached = qp;
        if (attached == null || attached.isClosed() || portSpace.isDatagram())
        {
            return event;
        }
        if (event.type() == CmEventType.CONNECT_RESPONSE)
        {
            // librdmacm's ucma_process_conn_resp: RTR, RTS, then rdma_establish sends the RTU
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment st = CallState.allocate(tmp);
                // INIT again first: only now does the CM know the access rights (remote write, and read/atomic
                // when responder resources were granted); before the request it reports none (kernel cma.c
                // cma_ib_init_qp_attr). librdmacm's ucma_modify_qp_rtr does the same INIT->INIT.
                modify(attached, IbvQpAttr.IBV_QPS_INIT, "connect: QP access rights (INIT)");
                modify(attached, IbvQpAttr.IBV_QPS_RTR, "connect: QP to RTR");
                modify(attached, IbvQpAttr.IBV_QPS_RTS, "connect: QP to RTS");
                call("connect: establish", "rdma_establish", Rdmacm.rdma_establish(st, pointer()), st);
                return event.as(CmEventType.ESTABLISHED, 0);
            }
            catch (final CmException | io.mlx5j.verbs.VerbsException ex)
            {
                final int errno = ex instanceof CmCallException c ? c.errno() : 22;
                try (Arena tmp = Arena.ofConfined())
                {
                    final MemorySegment st = CallState.allocate(tmp);
                    attached.toError();
                    Rdmacm.rdma_reject(st, handle, MemorySegment.NULL, (byte) 0);
                }
                catch (final RuntimeException ignored)
                {
                    // already failing: CONNECT_ERROR below reports the first cause
                }
                return event.as(CmEventType.CONNECT_ERROR, -errno);
            }
        }
        if (event.type() == CmEventType.DISCONNECTED)
        {
            try
            {
                attached.toError();
            }
            catch (final RuntimeException ignored)
            {
                // a QP already in ERR or RESET refuses nothing that matters here
            }
            if (!disconnectSent)
            {
                // the peer disconnected: answer now (rdma_disconnect in the DREQ-received state sends the DREP the
                // peer waits for, kernel cma.c rdma_disconnect); waiting for the application would leave the peer
                // hanging until its DREQ times out
                disconnectSent = true;
                try (Arena tmp = Arena.ofConfined())
                {
                    Rdmacm.rdma_disconnect(CallState.allocate(tmp), handle);
                }
            }
        }
        return event;
    }

    private void attach(final QueuePair newQp, final ConnectOptions options)
    {
        ensureOpen();
        final QpType wanted = portSpace.isDatagram() ? QpType.UD : QpType.RC;
        if (newQp.type() != wanted)
        {
            throw new IllegalArgumentException(portSpace + " port space needs a " + wanted + " QP, got " + newQp);
        }
        if (qp != null && qp != newQp)
        {
            throw new IllegalStateException(this + " already has " + qp);
        }
        responderResources = options.responderResources();
        initiatorDepth = options.initiatorDepth();
        qp = newQp;
    }

    private void readyDatagramQp(final QueuePair target)
    {
        modify(target, IbvQpAttr.IBV_QPS_INIT, "UD QP to INIT");
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
            attr.set(C_INT, IbvQpAttr.QP_STATE_OFFSET, IbvQpAttr.IBV_QPS_RTR);
            verbsModify(target, attr, IbvQpAttr.IBV_QP_STATE, "UD QP to RTR");
            attr.set(C_INT, IbvQpAttr.QP_STATE_OFFSET, IbvQpAttr.IBV_QPS_RTS);
            attr.set(U32, IbvQpAttr.SQ_PSN_OFFSET, 0);
            verbsModify(target, attr, IbvQpAttr.IBV_QP_STATE | IbvQpAttr.IBV_QP_SQ_PSN, "UD QP to RTS");
        }
    }

    /** One transition with the CM's attributes ({@code rdma_init_qp_attr}), as librdmacm's ucma_modify_qp_*. */
    private void modify(final QueuePair target, final int state, final String step)
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment mask = tmp.allocate(C_INT);
            attr.set(C_INT, IbvQpAttr.QP_STATE_OFFSET, state);
            call(step, "rdma_init_qp_attr", Rdmacm.rdma_init_qp_attr(st, handle, attr, mask), st);
            int m = mask.get(C_INT, 0) & ~KERNEL_ONLY_MASK_BITS;
            if (state == IbvQpAttr.IBV_QPS_RTR && responderResources != RdmaCmId.RDMA_MAX_RESP_RES)
            {
                attr.set(U8, IbvQpAttr.MAX_DEST_RD_ATOMIC_OFFSET, (byte) responderResources);
            }
            if (state == IbvQpAttr.IBV_QPS_RTS && initiatorDepth != RdmaCmId.RDMA_MAX_INIT_DEPTH)
            {
                attr.set(U8, IbvQpAttr.MAX_RD_ATOMIC_OFFSET, (byte) initiatorDepth);
            }
            verbsModify(target, attr, m, step);
        }
    }

    private void verbsModify(final QueuePair target, final MemorySegment attr, final int mask, final String step)
    {
        final int rc = Verbs.ibv_modify_qp(target.pointer(), attr, mask);
        if (rc != 0)
        {
            throw new CmCallException(step + " (mask 0x" + Integer.toHexString(mask) + ")", "ibv_modify_qp", rc);
        }
    }

    private MemorySegment connParam(final Arena tmp, final QueuePair target, final ConnectOptions options)
    {
        final MemorySegment p = tmp.allocate(RdmaConnParam.LAYOUT);
        final byte[] data = options.privateData();
        if (data.length > 0)
        {
            p.set(C_POINTER, RdmaConnParam.PRIVATE_DATA_OFFSET,
                tmp.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, data));
        }
        p.set(U8, RdmaConnParam.PRIVATE_DATA_LEN_OFFSET, (byte) data.length);
        p.set(U8, RdmaConnParam.RESPONDER_RESOURCES_OFFSET, (byte) options.responderResources());
        p.set(U8, RdmaConnParam.INITIATOR_DEPTH_OFFSET, (byte) options.initiatorDepth());
        p.set(U8, RdmaConnParam.RETRY_COUNT_OFFSET, (byte) options.retryCount());
        p.set(U8, RdmaConnParam.RNR_RETRY_COUNT_OFFSET, (byte) options.rnrRetryCount());
        // no QP on the id (librdmacm does not own ours): it takes the QPN and SRQ flag from here
        p.set(U8, RdmaConnParam.SRQ_OFFSET, (byte) (target.srq() != null ? 1 : 0));
        p.set(U32, RdmaConnParam.QP_NUM_OFFSET, target.qpn());
        return p;
    }

    private static void call(final String step, final String call, final int rc, final MemorySegment callState)
    {
        if (rc != 0)
        {
            throw new CmCallException(step, call, CallState.errno(callState));
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * Whether {@link #close()} ran (or the channel closed the id).
     *
     * @return true once destroyed
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * {@code rdma_destroy_id}; the attached QP stays (its owner closes it). Idempotent.
     *
     * @throws CmCallException if {@code rdma_destroy_id} fails
     */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        channel.unregister(this);
        final long address = handle.address();
        arena.close();
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment st = CallState.allocate(tmp);
            if (Rdmacm.rdma_destroy_id(st, MemorySegment.ofAddress(address)) != 0)
            {
                throw new CmCallException("destroy id", "rdma_destroy_id", CallState.errno(st));
            }
        }
    }

    @Override
    public String toString()
    {
        return "CmId(" + portSpace + (closed ? ", closed)" : ")");
    }
}
