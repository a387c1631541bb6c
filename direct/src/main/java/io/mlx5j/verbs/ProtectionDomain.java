// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvPd;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Mlx5dvPd;
import io.mlx5j.bindings.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;

/** A protection domain ({@code struct ibv_pd}): MRs, QPs, SRQs and AHs are created in one. */
public final class ProtectionDomain extends NativeResource
{
    private ProtectionDomain(final Context context, final Arena arena, final MemorySegment handle)
    {
        super(context, arena, handle, List.of());
    }

    static ProtectionDomain alloc(final Context context)
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment raw = Verbs.ibv_alloc_pd(state, context.handle);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_alloc_pd", CallState.errno(state), context.deviceName());
            }
            return new ProtectionDomain(context, arena, raw.reinterpret(IbvPd.LAYOUT.byteSize(), arena, null));
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** {@return the context this PD belongs to} */
    public Context context()
    {
        return owner;
    }

    /**
     * {@return the PD number the device knows this PD by ({@code mlx5dv_init_obj} with MLX5DV_OBJ_PD)} mlx5 devices
     * only.
     */
    public int pdn()
    {
        ensureOpen();
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment obj = tmp.allocate(Mlx5dvObj.LAYOUT);
            final MemorySegment out = tmp.allocate(Mlx5dvPd.LAYOUT);
            obj.set(C_POINTER, Mlx5dvObj.PD_IN_OFFSET, handle);
            obj.set(C_POINTER, Mlx5dvObj.PD_OUT_OFFSET, out);
            final int rc = Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_PD);
            if (rc != 0)
            {
                throw new VerbsException("mlx5dv_init_obj", rc, this + " (is it an mlx5 device?)");
            }
            return out.get(U32, Mlx5dvPd.PDN_OFFSET);
        }
    }

    /**
     * Registers {@code memory}, allocated from {@code arena}, with {@code access} ({@link Access} flags), and ties
     * the registration to the arena: closing the arena deregisters the MR before it frees the memory, so a
     * registered buffer is never freed under its MR whatever order try-with-resources closes things in.
     * <p>
     * How: the MR's close is added to the arena as a cleanup action ({@link MemorySegment#reinterpret(Arena,
     * java.util.function.Consumer)}). FFM runs an arena's cleanup actions newest first and frees the memory with
     * the action its allocation added, which is older, so {@code ibv_dereg_mr} always runs first (JDK 25
     * MemorySessionImpl.ResourceList, a stack). Closing the MR earlier (or its PD, or the Context) is fine: the
     * arena's action then finds it closed and does nothing. An error of the deregistration is thrown by
     * {@code arena.close()}, after the arena has freed everything.
     *
     * @param arena the arena {@code memory} was allocated from
     * @param memory the memory to register
     * @param access {@link Access} flags
     * @throws IllegalArgumentException if {@code memory} does not belong to {@code arena}
     * @return the memory region
     */
    public MemoryRegion register(final Arena arena, final MemorySegment memory, final int access)
    {
        if (!memory.scope().equals(arena.scope()))
        {
            throw new IllegalArgumentException(memory + " was not allocated from " + arena);
        }
        synchronized (lock())
        {
            ensureOpen();
            final MemoryRegion mr = MemoryRegion.register(this, memory, access);
            try
            {
                memory.reinterpret(arena, unused -> mr.close());
                mr.tieToArena();
            }
            catch (final RuntimeException ex)
            {
                mr.close();     // the arena is closing or belongs to another thread: do not leave an untied MR
                throw ex;
            }
            return mr;
        }
    }

    /**
     * Registers {@code memory} (native, any length up to the device's max_mr_size) with {@code access}
     * ({@link Access} flags), leaving its lifetime to the caller: the memory must stay allocated until the MR is
     * closed, because the device may read or write it until then. Prefer {@link #register(Arena, MemorySegment,
     * int)}, which enforces that. Memory freed while registered is reported when the MR closes (an
     * {@link IllegalStateException} after the deregistration), since by then it cannot be undone.
     *
     * @param memory the memory to register
     * @param access {@link Access} flags
     * @return the memory region
     */
    public MemoryRegion register(final MemorySegment memory, final int access)
    {
        synchronized (lock())
        {
            ensureOpen();
            return MemoryRegion.register(this, memory, access);
        }
    }

    /**
     * Creates a QP in this PD.
     *
     * @param config what to create
     * @return the new QP
     */
    public QueuePair createQp(final QpConfig config)
    {
        synchronized (lock())
        {
            ensureOpen();
            return QueuePair.create(this, config);
        }
    }

    /**
     * Creates a receive work queue (plain or striding) in this PD, in RESET: see {@link WorkQueue#ready()}.
     *
     * @param config what to create
     * @return the new WQ
     */
    public WorkQueue createWq(final WorkQueue.Builder config)
    {
        synchronized (lock())
        {
            ensureOpen();
            return WorkQueue.create(this, config);
        }
    }

    /**
     * An RSS QP: a RAW_PACKET QP without queues of its own that hashes each frame steered to it ({@link
     * io.mlx5j.raw.FlowRule}) with Toeplitz over {@code hashFields} ({@link RxHash}) and {@code key} (40 bytes), and
     * delivers it to the WQ of {@code table} the hash selects. It needs no state changes. See {@link
     * QueuePair#isRss()}.
     *
     * @param table the indirection table
     * @param hashFields OR of {@link RxHash} field bits
     * @param key the 40-byte Toeplitz key
     * @return the new QP
     */
    public QueuePair createRssQp(final IndirectionTable table, final long hashFields, final byte[] key)
    {
        synchronized (lock())
        {
            ensureOpen();
            return QueuePair.createRss(this, table, hashFields, key);
        }
    }

    /**
     * Creates an SRQ in this PD with room for at least {@code maxWr} WQEs of {@code maxSge} entries.
     *
     * @param maxWr the least number of WQEs
     * @param maxSge scatter entries per WQE
     * @return the new SRQ
     */
    public SharedReceiveQueue createSrq(final int maxWr, final int maxSge)
    {
        synchronized (lock())
        {
            ensureOpen();
            return SharedReceiveQueue.create(this, maxWr, maxSge, 0);
        }
    }

    /**
     * Creates an XRC SRQ ({@code ibv_create_srq_ex} with IBV_SRQT_XRC) in this PD and {@code xrcd}, completing on
     * {@code cq}: the XRC TGT QPs of the domain receive into it what XRC INI QPs send naming its
     * {@link SharedReceiveQueue#srqNum()}. Post its receive WQEs through {@code SrqRecvQueue}, attached to the
     * {@code CqPoller} of {@code cq}.
     *
     * @param xrcd the XRC domain
     * @param cq the CQ of its receives' completions
     * @param maxWr receive WQEs wanted
     * @param maxSge scatter entries per WQE
     * @return the new XRC SRQ
     * @throws IllegalArgumentException if {@code xrcd} or {@code cq} is null or of another context, or a size is
     *     below 1
     * @throws VerbsException if libibverbs refuses (EOPNOTSUPP: the device has no XRC)
     */
    public SharedReceiveQueue createXrcSrq(final XrcDomain xrcd, final CompletionQueue cq, final int maxWr,
        final int maxSge)
    {
        synchronized (lock())
        {
            ensureOpen();
            return SharedReceiveQueue.createXrc(this, xrcd, cq, maxWr, maxSge);
        }
    }

    /**
     * Creates an address handle for UD sends to {@code destination}.
     *
     * @param destination where the datagrams go
     * @return the new AH
     */
    public AddressHandle createAh(final AddressVector destination)
    {
        synchronized (lock())
        {
            ensureOpen();
            return AddressHandle.create(this, destination);
        }
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return Verbs.ibv_dealloc_pd(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_dealloc_pd";
    }

    @Override
    public String toString()
    {
        return "ProtectionDomain(" + owner.deviceName() + (isClosed() ? ", closed)" : ")");
    }
}
