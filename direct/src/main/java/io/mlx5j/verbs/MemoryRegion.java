// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvMr;
import io.mlx5j.bindings.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_LONG;
import static io.mlx5j.bindings.CTypes.U32;

/**
 * Registered memory ({@code struct ibv_mr}) over a native {@link MemorySegment}. The keys and bounds are read once at
 * registration; data-path code copies them into local fields.
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class MemoryRegion extends NativeResource
{
    private final MemorySegment memory;
    private final int access;
    private final int lkey;
    private final int rkey;
    private final long length;
    private volatile boolean tiedToArena;

    private MemoryRegion(final ProtectionDomain pd, final Arena arena, final MemorySegment handle,
        final MemorySegment memory, final int access)
    {
        super(pd.owner, arena, handle, List.of(pd));
        this.memory = memory;
        this.access = access;
        this.lkey = handle.get(U32, IbvMr.LKEY_OFFSET);
        this.rkey = handle.get(U32, IbvMr.RKEY_OFFSET);
        this.length = handle.get(C_LONG, IbvMr.LENGTH_OFFSET);
    }

    static MemoryRegion register(final ProtectionDomain pd, final MemorySegment memory, final int access)
    {
        if (!memory.isNative())
        {
            throw new IllegalArgumentException(
                "only native memory can be registered (the device DMAs to it): " + memory);
        }
        if (memory.byteSize() == 0)
        {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (access & Access.LOCAL_WRITE) == 0)
        {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (ibv_reg_mr rule)");
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            // iova == addr: what the ibv_reg_mr macro does for plain registrations
            final MemorySegment raw = Verbs.ibv_reg_mr_iova2(state, pd.handle, memory, memory.byteSize(),
                memory.address(), access);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_reg_mr", CallState.errno(state),
                    memory.byteSize() + " bytes at 0x" + Long.toHexString(memory.address()));
            }
            return new MemoryRegion(pd, arena, raw.reinterpret(IbvMr.LAYOUT.byteSize(), arena, null), memory, access);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** Marks this MR as deregistered by its memory's arena before the arena frees it. */
    void tieToArena()
    {
        tiedToArena = true;
    }

    /** {@return the local key, for gather and scatter entries} */
    public int lkey()
    {
        ensureOpen();
        return lkey;
    }

    /** {@return the remote key, which peers present to RDMA or atomics on this memory} */
    public int rkey()
    {
        ensureOpen();
        return rkey;
    }

    /**
     * Start address of the registered memory (also its iova).
     *
     * @return the address
     */
    public long address()
    {
        ensureOpen();
        return memory.address();
    }

    /**
     * Registered length in bytes (64-bit).
     *
     * @return the length
     */
    public long length()
    {
        ensureOpen();
        return length;
    }

    /** {@return the {@link Access} flags the memory was registered with} */
    public int access()
    {
        return access;
    }

    /** {@return the registered memory} */
    public MemorySegment memory()
    {
        ensureOpen();
        return memory;
    }

    @Override
    int destroy(final MemorySegment address)
    {
        final int rc = Verbs.ibv_dereg_mr(address);
        // a tied MR runs in its arena's close, which marks the scope dead before it runs the actions, but frees later
        if (rc == 0 && !tiedToArena && !memory.scope().isAlive())
        {
            throw new IllegalStateException(this + ": its memory was freed (its arena closed) while it was "
                + "registered, so the device could have written to freed memory; register with "
                + "ProtectionDomain.register(arena, memory, access) to deregister when the arena closes");
        }
        return rc;
    }

    @Override
    String destroyCall()
    {
        return "ibv_dereg_mr";
    }

    @Override
    public String toString()
    {
        return String.format("MemoryRegion(lkey 0x%x, rkey 0x%x, %d bytes%s)", lkey, rkey, length,
            isClosed() ? ", closed" : "");
    }
}
