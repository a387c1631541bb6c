// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvContext;
import io.mlx5j.bindings.IbvDeviceAttr;
import io.mlx5j.bindings.IbvGid;
import io.mlx5j.bindings.IbvPortAttr;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;

/**
 * An open device ({@code struct ibv_context}): the root of every other object. Closing it closes everything created
 * under it, newest first, then the device.
 */
public final class Context extends NativeResource
{
    private final String deviceName;
    private final boolean mlx5;
    private final List<NativeResource> resources = new ArrayList<>();
    /**
     * QPs, CQs and SRQs by native address: ibv_get_cq_event and ibv_get_async_event return pointers, and the channel
     * and the async event loop map them back to the Java objects.
     */
    private final ObjectsByAddress objects = new ObjectsByAddress();
    private AsyncEvents asyncEvents;

    private Context(final Arena arena, final MemorySegment handle, final String deviceName, final boolean mlx5)
    {
        super(null, arena, handle, List.of());
        this.deviceName = deviceName;
        this.mlx5 = mlx5;
    }

    static Context open(final Device device)
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment raw = Verbs.ibv_open_device(state, device.pointer());
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_open_device", CallState.errno(state), device.name());
            }
            return new Context(arena, raw.reinterpret(IbvContext.LAYOUT.byteSize(), arena, null), device.name(),
                device.isMlx5());
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * Opens the device of that name (e.g. {@code mlx5_0}); the device list is only held during the call.
     *
     * @param deviceName the kernel device name
     * @return the open context
     */
    public static Context open(final String deviceName)
    {
        try (DeviceList list = DeviceList.open())
        {
            return list.get(deviceName).open();
        }
    }

    /**
     * Opens the first device libibverbs lists; fails clearly when there is none.
     *
     * @return the open context
     */
    public static Context openFirst()
    {
        try (DeviceList list = DeviceList.open())
        {
            if (list.size() == 0)
            {
                throw new IllegalStateException(
                    "no RDMA device found (run under emulator/mlx5emu for the emulated one)");
            }
            return list.devices().get(0).open();
        }
    }

    /** {@return the kernel name of the device, e.g. {@code mlx5_0}} */
    public String deviceName()
    {
        return deviceName;
    }

    /** {@return true if libmlx5 drives the device: {@link QueuePair#rings()} and friends need this} */
    public boolean isMlx5()
    {
        return mlx5;
    }

    /** {@return the number of completion vectors ({@code ibv_context.num_comp_vectors})} */
    public int numCompVectors()
    {
        ensureOpen();
        return handle.get(C_INT, IbvContext.NUM_COMP_VECTORS_OFFSET);
    }

    /**
     * Queries the device's attributes ({@code ibv_query_device}).
     *
     * @return the attributes
     * @throws VerbsException if the call fails
     * @throws IllegalStateException if the context is closed
     */
    public DeviceAttributes queryDevice()
    {
        ensureOpen();
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment attr = tmp.allocate(IbvDeviceAttr.LAYOUT);
            final int rc = Verbs.ibv_query_device(handle, attr);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_device", rc, deviceName);
            }
            return DeviceAttributes.read(attr);
        }
    }

    /**
     * Port attributes; ports count from 1. Goes through verbs_context.query_port as the verbs.h macro does.
     *
     * @param port the port number, from 1
     * @return the port's attributes
     */
    public PortAttributes queryPort(final int port)
    {
        ensureOpen();
        checkPort(port);
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment attr = tmp.allocate(IbvPortAttr.LAYOUT);
            final int rc = InlineVerbs.ibv_query_port(handle, (byte) port, attr);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_port", rc, deviceName + " port " + port);
            }
            return PortAttributes.read(port, attr);
        }
    }

    /**
     * GID table entry {@code index} of {@code port}.
     *
     * @param port the port number, from 1
     * @param index the GID table index
     * @return the GID
     */
    public Gid queryGid(final int port, final int index)
    {
        ensureOpen();
        checkPort(port);
        if (index < 0)
        {
            throw new IllegalArgumentException("GID index must be >= 0, got " + index);
        }
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(tmp);
            final MemorySegment gid = tmp.allocate(IbvGid.LAYOUT);
            final int rc = Verbs.ibv_query_gid(state, handle, (byte) port, index, gid);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_gid", CallState.errno(state),
                    deviceName + " port " + port + " index " + index);
            }
            return Gid.read(gid, 0);
        }
    }

    /**
     * Allocates a protection domain ({@code ibv_alloc_pd}).
     *
     * @return the new PD, owned by this context
     */
    public ProtectionDomain allocPd()
    {
        synchronized (this)
        {
            ensureOpen();
            return ProtectionDomain.alloc(this);
        }
    }

    /**
     * Opens a private XRC domain ({@code ibv_open_xrcd} with fd -1 and O_CREAT): XRC SRQs and TGT QPs of this context
     * only.
     *
     * @return the new domain, owned by this context
     * @throws VerbsException if the device has no XRC (EOPNOTSUPP)
     */
    public XrcDomain openXrcDomain()
    {
        synchronized (this)
        {
            ensureOpen();
            return XrcDomain.open(this, -1, XrcDomain.O_CREAT);
        }
    }

    /**
     * Opens the XRC domain of the file {@code fd} is open on ({@code ibv_open_xrcd}): processes that open one file
     * share its domain. The descriptor must stay open while the domain is used; the domain does not close it.
     *
     * @param fd an open file descriptor (from native code: the JDK does not expose a file's descriptor)
     * @param create O_CREAT: make the domain if the file has none
     * @param exclusive O_EXCL (with create): fail if the file already has a domain
     * @return the domain, owned by this context
     * @throws IllegalArgumentException if {@code fd} is negative (use {@link #openXrcDomain()} for a private domain)
     *     or {@code exclusive} is asked without {@code create}
     * @throws VerbsException with EBADF (no such fd), EAGAIN (no domain and no create), EINVAL (exclusive and one
     *     exists)
     */
    public XrcDomain openXrcDomain(final int fd, final boolean create, final boolean exclusive)
    {
        if (fd < 0)
        {
            throw new IllegalArgumentException("file descriptor " + fd + ": openXrcDomain() opens a private domain");
        }
        if (exclusive && !create)
        {
            throw new IllegalArgumentException("exclusive (O_EXCL) needs create (O_CREAT)");
        }
        synchronized (this)
        {
            ensureOpen();
            return XrcDomain.open(this, fd, (create ? XrcDomain.O_CREAT : 0) | (exclusive ? XrcDomain.O_EXCL : 0));
        }
    }

    /**
     * Creates a completion channel ({@code ibv_create_comp_channel}) for event-driven CQs.
     *
     * @return the new channel, owned by this context
     */
    public CompletionChannel createCompletionChannel()
    {
        synchronized (this)
        {
            ensureOpen();
            return CompletionChannel.create(this);
        }
    }

    /**
     * A CQ of at least {@code depth} 64-byte CQEs, polled only (no channel).
     *
     * @param depth the least number of CQEs
     * @return the new CQ, owned by this context
     */
    public CompletionQueue createCq(final int depth)
    {
        return createCq(depth, 64, null, 0);
    }

    /**
     * A CQ of at least {@code depth} CQEs.
     *
     * @param cqeSize    64, or 128 (then created with mlx5dv_create_cq and MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE)
     * @param channel    completion channel for event mode, or null
     * @param compVector completion vector, {@code 0 <= compVector < numCompVectors()}
     * @param depth the least number of CQEs
     * @return the new CQ, owned by this context
     */
    public CompletionQueue createCq(final int depth, final int cqeSize, final CompletionChannel channel,
        final int compVector)
    {
        synchronized (this)
        {
            ensureOpen();
            return CompletionQueue.create(this, depth, cqeSize, channel, compVector);
        }
    }

    /**
     * A CQ of at least {@code depth} 64-byte CQEs whose receive completions the NIC may compress into title CQEs and
     * mini-CQE arrays ({@code mlx5dv_create_cq} with MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE), which saves CQE writes
     * over PCIe at high receive rates. Poll it with {@link io.mlx5j.direct.CqPoller} only (libmlx5's
     * {@code ibv_poll_cq} has no decoder for compressed CQEs); it serves send queues and the receive queue of one raw
     * packet QP, WQ or striding WQ. {@link DeviceCapabilities#cqeCompressionFormats()} says what the device offers.
     *
     * @param depth  the least number of CQEs the CQ holds
     * @param format one of {@code Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH} (1: mini-CQEs carry the RSS hash),
     *               {@code _CSUM} (2: the checksum), {@code _CSUM_STRIDX} (4: the checksum and the stride index)
     * @return the CQ, owned by this context
     * @throws IllegalArgumentException if {@code format} is not one of them
     * @throws VerbsException           if the device does not offer it (EINVAL from libmlx5, EOPNOTSUPP)
     */
    public CompletionQueue createCompressedCq(final int depth, final int format)
    {
        synchronized (this)
        {
            ensureOpen();
            return CompletionQueue.createCompressed(this, depth, format);
        }
    }

    /**
     * A CQ created with {@code ibv_create_cq_ex} and {@code wcFlags} (IBV_WC_EX_*, e.g. completion timestamps), for
     * code that also reads it through libmlx5's {@code ibv_start_poll} / {@code ibv_wc_read_*}.
     *
     * @param depth the least number of CQEs
     * @param wcFlags OR of {@code IBV_WC_EX_WITH_*} flags
     * @return the new CQ, owned by this context
     */
    public CompletionQueue createCqEx(final int depth, final long wcFlags)
    {
        synchronized (this)
        {
            ensureOpen();
            return CompletionQueue.createEx(this, depth, wcFlags);
        }
    }

    /**
     * An RSS indirection table over {@code wqs} (2^n entries, repeats allowed), for
     * {@link ProtectionDomain#createRssQp}.
     *
     * @param wqs the work queues, 2^n of them
     * @return the new table, owned by this context
     */
    public IndirectionTable createIndirectionTable(final java.util.List<WorkQueue> wqs)
    {
        synchronized (this)
        {
            ensureOpen();
            return IndirectionTable.create(this, wqs);
        }
    }

    /**
     * {@return the context's asynchronous events (QP errors, LAST_WQE_REACHED, SRQ limit, CQ error, port up and down):
     * one {@link AsyncEvents} per context, created on first use, over its async fd} See there for polling, the
     * acknowledgement rule and threads.
     */
    public AsyncEvents asyncEvents()
    {
        synchronized (this)
        {
            ensureOpen();
            if (asyncEvents == null)
            {
                asyncEvents = new AsyncEvents(this);
            }
            return asyncEvents;
        }
    }

    /** The async fd libibverbs opened with the context ({@code ibv_context.async_fd}). */
    int asyncFd()
    {
        return handle.get(C_INT, IbvContext.ASYNC_FD_OFFSET);
    }

    private void checkPort(final int port)
    {
        if (port < 1 || port > 255)
        {
            throw new IllegalArgumentException("port numbers count from 1 (uint8_t), got " + port);
        }
    }

    void register(final NativeResource resource)
    {
        resources.add(resource);
        if (resource instanceof CompletionQueue || resource instanceof QueuePair
            || resource instanceof SharedReceiveQueue)
        {
            objects.put(resource.handle.address(), resource);
        }
    }

    void unregister(final NativeResource resource)
    {
        resources.remove(resource);
        if (resource instanceof CompletionQueue || resource instanceof QueuePair
            || resource instanceof SharedReceiveQueue)
        {
            objects.remove(resource.handle.address());
        }
    }

    CompletionQueue cqAt(final long address)
    {
        return objects.get(address) instanceof CompletionQueue cq ? cq : null;
    }

    /** The live QP, CQ or SRQ whose libibverbs struct is at {@code address}, or null; no lock, no allocation. */
    NativeResource objectAt(final long address)
    {
        return objects.get(address);
    }

    /** Closes every object created under this context, newest first, then the async event loop's memory. */
    @Override
    void beforeDestroy()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
        if (asyncEvents != null)
        {
            asyncEvents.release();
        }
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return Verbs.ibv_close_device(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_close_device";
    }

    @Override
    public String toString()
    {
        return "Context(" + deviceName + ")";
    }
}
