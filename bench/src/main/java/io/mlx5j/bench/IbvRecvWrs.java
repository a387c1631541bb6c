// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.mlx5j.bindings.IbvRecvWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.InlineVerbs;

/**
 * Receive work requests for libmlx5's {@code ibv_post_recv} on {@link EmulatedRawQp}, pre-built in native memory as
 * an application that recycles a fixed set of buffers keeps them: one {@code ibv_recv_wr} per buffer slot (wr_id =
 * slot, one SGE over {@link EmulatedRawQp#recvBuffer}), alone ({@link #single}) or linked into the aligned group of
 * 16 it belongs to ({@link #group}: one post for 16 buffers). Setup fills the receive queue with every slot.
 */
final class IbvRecvWrs
{
    private static final long WR = IbvRecvWr.LAYOUT.byteSize();

    private final MemorySegment postRecv;
    private final MemorySegment qp;
    /** The WR of each slot, as a global-scope segment per slot (nothing is created per post). */
    private final MemorySegment[] singles;
    private final MemorySegment[] groups;
    private final MemorySegment badWr;

    IbvRecvWrs(final EmulatedRawQp env, final Arena arena)
    {
        final int n = EmulatedRawQp.MAX_WR;
        postRecv = InlineVerbs.postRecvFn(env.qp.pointer());
        qp = Libmlx5.raw(env.qp.pointer());
        badWr = Libmlx5.raw(arena.allocate(ValueLayout.ADDRESS));
        final MemorySegment sges = arena.allocate(IbvSge.LAYOUT, n);
        final MemorySegment s = arena.allocate(IbvRecvWr.LAYOUT, n);
        final MemorySegment g = arena.allocate(IbvRecvWr.LAYOUT, n);
        for (int slot = 0; slot < n; slot++)
        {
            final long sge = slot * IbvSge.LAYOUT.byteSize();
            sges.set(ValueLayout.JAVA_LONG, sge + IbvSge.ADDR_OFFSET, env.recvBuffer(slot));
            sges.set(ValueLayout.JAVA_INT, sge + IbvSge.LENGTH_OFFSET, RawWorkload.RECV_BUF);
            sges.set(ValueLayout.JAVA_INT, sge + IbvSge.LKEY_OFFSET, env.mr.lkey());
            for (final MemorySegment list : new MemorySegment[] {s, g})
            {
                final long at = slot * WR;
                list.set(ValueLayout.JAVA_LONG, at + IbvRecvWr.WR_ID_OFFSET, slot);
                list.set(ValueLayout.ADDRESS, at + IbvRecvWr.SG_LIST_OFFSET, sges.asSlice(sge));
                list.set(ValueLayout.JAVA_INT, at + IbvRecvWr.NUM_SGE_OFFSET, 1);
                final boolean linked = list == g && (slot & 15) != 15;
                list.set(ValueLayout.ADDRESS, at + IbvRecvWr.NEXT_OFFSET,
                    linked ? g.asSlice(at + WR) : MemorySegment.NULL);
            }
        }
        singles = new MemorySegment[n];
        groups = new MemorySegment[n];
        for (int slot = 0; slot < n; slot++)
        {
            singles[slot] = MemorySegment.ofAddress(s.address() + slot * WR);
            groups[slot] = MemorySegment.ofAddress(g.address() + slot * WR);
        }
        for (int slot = 0; slot < n; slot++)
        {
            single(slot);
        }
    }

    /** ibv_post_recv of buffer {@code slot} alone. */
    void single(final int slot)
    {
        post(singles[slot], slot);
    }

    /** ibv_post_recv of buffers {@code first} .. {@code first + 15} in one call ({@code first} a multiple of 16). */
    void group(final int first)
    {
        post(groups[first], first);
    }

    private void post(final MemorySegment wr, final int slot)
    {
        final int rc = RawLibmlx5.postRecv(postRecv, qp, wr, badWr);
        if (rc != 0)
        {
            throw new IllegalStateException("ibv_post_recv of buffer " + slot + " failed: " + rc);
        }
    }
}
