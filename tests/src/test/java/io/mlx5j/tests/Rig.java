// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Test setup on the emulated device: one context, PD, registered memory, and the addressing of the link the
 * surefire execution runs on (IB: LID routed; Ethernet/RoCE: GRH with GID index 1, RoCE v2).
 */
final class Rig implements AutoCloseable
{
    static final int QKEY = 0x11111111;

    final Context context;
    final ProtectionDomain pd;
    final Arena memory = Arena.ofShared();
    final PortAttributes port;
    final boolean roce;
    final Gid gid;
    final int gidIndex;
    private final List<AutoCloseable> extra = new ArrayList<>();

    Rig()
    {
        context = Context.open("mlx5_0");
        pd = context.allocPd();
        port = context.queryPort(1);
        roce = port.isEthernet();
        gidIndex = roce ? 1 : 0;
        gid = context.queryGid(1, gidIndex);
    }

    /** Registered, page-aligned, zeroed memory. */
    MemoryRegion memory(final long bytes)
    {
        return pd.register(memory.allocate(bytes, 4096), Access.ALL_REMOTE);
    }

    /** The path from this port to itself (loopback peers on the same device). */
    AddressVector path()
    {
        return roce ? AddressVector.global(1, gid, gidIndex, 64, 0) : AddressVector.ib(1, port.lid(), 0);
    }

    PeerInfo peer(final QueuePair qp, final int psn)
    {
        return PeerInfo.of(roce ? 0 : port.lid(), qp.qpn(), psn, gid);
    }

    /** Connects a to b and b to a (RC/UC), or brings UD QPs to RTS. */
    void connect(final QueuePair a, final QueuePair b)
    {
        final int access = a.type() == QpType.UC ? Access.LOCAL_WRITE | Access.REMOTE_WRITE : Access.ALL_REMOTE;
        a.connect(1, access, QKEY, port.activeMtu(), peer(b, 0x200), path(), 0x100);
        if (b != a)
        {
            b.connect(1, access, QKEY, port.activeMtu(), peer(a, 0x100), path(), 0x200);
        }
    }

    CompletionQueue cq(final int depth)
    {
        return context.createCq(depth);
    }

    /** Spins until one completion arrives (10 s limit). */
    static Completion await(final CqPoller cq, final Completion c)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(c) == 0)
        {
            if (System.nanoTime() > deadline)
            {
                fail("no completion on " + cq + " within 10 s");
            }
            Thread.onSpinWait();
        }
        return c;
    }

    /** Polls for 50 ms and asserts that nothing arrives. */
    static void assertEmpty(final CqPoller cq, final Completion c)
    {
        final long until = System.nanoTime() + 50_000_000L;
        while (System.nanoTime() < until)
        {
            assertEquals(0, cq.poll(c), () -> "unexpected completion " + c);
            Thread.onSpinWait();
        }
    }

    static void fill(final MemorySegment s, final long offset, final int len, final int seed)
    {
        for (int i = 0; i < len; i++)
        {
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i, (byte) (seed * 31 + i * 7 + (i >>> 8)));
        }
    }

    void closeLater(final AutoCloseable c)
    {
        extra.add(c);
    }

    @Override
    public void close()
    {
        for (int i = extra.size() - 1; i >= 0; i--)
        {
            try
            {
                extra.get(i).close();
            }
            catch (final Exception e)
            {
                throw new IllegalStateException(e);
            }
        }
        context.close();
        memory.close();
    }
}
