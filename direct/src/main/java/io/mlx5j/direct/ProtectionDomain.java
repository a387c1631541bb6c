package io.mlx5j.direct;

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

    public Context context()
    {
        return owner;
    }

    /** The PD number the device knows this PD by ({@code mlx5dv_init_obj} with MLX5DV_OBJ_PD). mlx5 devices only. */
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
     * Registers {@code memory} (native, any length up to the device's max_mr_size) with {@code access}
     * ({@link Access} flags). The memory must stay alive until the MR is closed: the device may read or write it
     * until then, and FFM cannot pin another arena open.
     */
    public MemoryRegion register(final MemorySegment memory, final int access)
    {
        synchronized (lock())
        {
            ensureOpen();
            return MemoryRegion.register(this, memory, access);
        }
    }

    /** Creates a QP in this PD. */
    public QueuePair createQp(final QpConfig config)
    {
        synchronized (lock())
        {
            ensureOpen();
            return QueuePair.create(this, config);
        }
    }

    /** Creates an SRQ in this PD with room for at least {@code maxWr} WQEs of {@code maxSge} entries. */
    public SharedReceiveQueue createSrq(final int maxWr, final int maxSge)
    {
        synchronized (lock())
        {
            ensureOpen();
            return SharedReceiveQueue.create(this, maxWr, maxSge, 0);
        }
    }

    /** Creates an address handle for UD sends to {@code destination}. */
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
