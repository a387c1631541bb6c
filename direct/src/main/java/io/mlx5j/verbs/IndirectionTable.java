// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvRwqIndTable;
import io.mlx5j.bindings.IbvRwqIndTableInitAttr;
import io.mlx5j.bindings.InlineVerbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;

/**
 * A receive WQ indirection table ({@code ibv_create_rwq_ind_table}): 2^n entries, each a {@link WorkQueue}; an RSS
 * QP hashes a frame's headers and delivers it to the WQ at entry {@code hash mod 2^n}. A WQ may appear in several
 * entries (weighting). The table depends on its WQs: closing a WQ closes the table (and the RSS QPs using it) first.
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class IndirectionTable extends NativeResource
{
    private final List<WorkQueue> wqs;

    private IndirectionTable(final Context context, final Arena arena, final MemorySegment handle,
        final List<WorkQueue> wqs)
    {
        super(context, arena, handle, new ArrayList<NativeResource>(new java.util.LinkedHashSet<>(wqs)));
        this.wqs = List.copyOf(wqs);
    }

    static IndirectionTable create(final Context context, final List<WorkQueue> wqs)
    {
        final int n = wqs.size();
        if (n < 1 || Integer.bitCount(n) != 1)
        {
            throw new IllegalArgumentException("an indirection table has 2^n entries, got " + n);
        }
        for (final WorkQueue wq : wqs)
        {
            wq.ensureOpen();
            if (wq.owner != context)
            {
                throw new IllegalArgumentException(wq + " belongs to another context");
            }
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment entries = arena.allocate(C_POINTER, n);
            for (int i = 0; i < n; i++)
            {
                entries.setAtIndex(C_POINTER, i, wqs.get(i).handle);
            }
            final MemorySegment attr = arena.allocate(IbvRwqIndTableInitAttr.LAYOUT);
            attr.set(U32, IbvRwqIndTableInitAttr.LOG_IND_TBL_SIZE_OFFSET, Integer.numberOfTrailingZeros(n));
            attr.set(C_POINTER, IbvRwqIndTableInitAttr.IND_TBL_OFFSET, entries);
            final MemorySegment raw = InlineVerbs.ibv_create_rwq_ind_table(state, context.handle, attr);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_create_rwq_ind_table", CallState.errno(state), n + " entries");
            }
            return new IndirectionTable(context, arena, raw.reinterpret(IbvRwqIndTable.LAYOUT.byteSize(), arena, null),
                wqs);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** {@return the entries, in table order} */
    public List<WorkQueue> entries()
    {
        return wqs;
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return InlineVerbs.ibv_destroy_rwq_ind_table(address.reinterpret(IbvRwqIndTable.LAYOUT.byteSize()));
    }

    @Override
    String destroyCall()
    {
        return "ibv_destroy_rwq_ind_table";
    }

    @Override
    public String toString()
    {
        return "IndirectionTable(" + wqs.size() + " entries" + (isClosed() ? ", closed)" : ")");
    }
}
