// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvAh;
import io.mlx5j.bindings.IbvAhAttr;
import io.mlx5j.bindings.Mlx5WqeAv;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvAh;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.verbs.internal.Rings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_POINTER;

/**
 * An address handle ({@code struct ibv_ah}) for UD sends. {@link #av()} is the 48-byte {@code struct mlx5_wqe_av}
 * libmlx5 built for it, which a direct UD send copies into its datagram segment (then sets the remote QPN/Q_Key).
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class AddressHandle extends NativeResource
{
    private final AddressVector destination;
    private MemorySegment av;

    private AddressHandle(final ProtectionDomain pd, final Arena arena, final MemorySegment handle,
        final AddressVector destination)
    {
        super(pd.owner, arena, handle, List.of(pd));
        this.destination = destination;
    }

    static AddressHandle create(final ProtectionDomain pd, final AddressVector destination)
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvAhAttr.LAYOUT);
            destination.write(attr, 0);
            final MemorySegment raw = Verbs.ibv_create_ah(state, pd.handle, attr);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_create_ah", CallState.errno(state), destination.toString());
            }
            return new AddressHandle(pd, arena, raw.reinterpret(IbvAh.LAYOUT.byteSize(), arena, null), destination);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** {@return the address vector this AH was created with} */
    public AddressVector destination()
    {
        return destination;
    }

    /** {@return the mlx5 address vector ({@code mlx5dv_init_obj} with MLX5DV_OBJ_AH), 48 bytes, scoped to this AH} */
    public MemorySegment av()
    {
        synchronized (lock())
        {
            ensureOpen();
            if (av == null)
            {
                try (Arena tmp = Arena.ofConfined())
                {
                    final MemorySegment obj = tmp.allocate(Mlx5dvObj.LAYOUT);
                    final MemorySegment out = tmp.allocate(Mlx5dvAh.LAYOUT);
                    obj.set(C_POINTER, Mlx5dvObj.AH_IN_OFFSET, handle);
                    obj.set(C_POINTER, Mlx5dvObj.AH_OUT_OFFSET, out);
                    final int rc = Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_AH);
                    if (rc != 0)
                    {
                        throw new VerbsException("mlx5dv_init_obj", rc, this + " (is it an mlx5 device?)");
                    }
                    av = Rings.view(out.get(C_POINTER, Mlx5dvAh.AV_OFFSET), Mlx5WqeAv.LAYOUT.byteSize(), arena,
                        "ah.av");
                }
            }
            return av;
        }
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return Verbs.ibv_destroy_ah(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_destroy_ah";
    }

    @Override
    public String toString()
    {
        return "AddressHandle(" + destination + (isClosed() ? ", closed)" : ")");
    }
}
