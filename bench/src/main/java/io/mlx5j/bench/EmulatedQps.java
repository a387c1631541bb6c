// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * N RC QPs on one send CQ, as a storage server or client with one connection per peer holds them: what the many-QP
 * rows ({@link Mlx5jManyQpBench}, the C loop's {@code c.IbvManyQpBench}) post to round-robin, so that the cache
 * footprint of N send rings, doorbell records and BlueFlame registers is part of the measurement. Each QP has the
 * geometry of {@link EmulatedQp} (256 send WQEs, 1 SGE, 64 bytes inline) and is connected (RTS) to one twin QP of
 * its own kind: with the engine off nothing is transmitted, and RTR only needs a remote QP number.
 * <p>
 * Confinement: created and used by one benchmark thread (JMH {@code Scope.Thread} state).
 */
public final class EmulatedQps implements AutoCloseable
{
    /** CQ depth: one CQE is outstanding at a time, as in {@link EmulatedQp#CQ_DEPTH}. */
    public static final int CQ_DEPTH = EmulatedQp.CQ_DEPTH;

    public final Context context;
    public final ProtectionDomain pd;
    public final MemoryRegion mr;
    public final CompletionQueue cq;
    public final QueuePair[] qps;
    /** Each QP's user index as the emulated kernel recorded it (requester CQEs carry it under cqe_version 1). */
    public final int[] uidx;
    private final CompletionQueue twinCq;
    private final QueuePair twin;
    private final Arena memory;

    private EmulatedQps(final int n)
    {
        ForkArgs.requireExport();
        EmulatedQp.requireIdleEmulator();
        context = Context.openFirst();
        memory = Arena.ofShared();
        try
        {
            pd = context.allocPd();
            mr = pd.register(memory.allocate(EmulatedQp.MR_BYTES, 4096), Access.ALL_REMOTE);
            cq = context.createCq(CQ_DEPTH);
            twinCq = context.createCq(CQ_DEPTH);
            twin = pd.createQp(config(twinCq));
            qps = new QueuePair[n];
            uidx = new int[n];
            final PortAttributes port = context.queryPort(1);
            final Gid gid = context.queryGid(1, port.isEthernet() ? 1 : 0);
            final AddressVector path = port.isEthernet() ? AddressVector.global(1, gid, 1, 64, 0)
                : AddressVector.ib(1, port.lid(), 0);
            final int lid = port.isEthernet() ? 0 : port.lid();
            for (int i = 0; i < n; i++)
            {
                qps[i] = pd.createQp(config(cq));
                qps[i].connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(lid, twin.qpn(), 200, gid),
                    path, 100);
                uidx[i] = EmulatedQp.emulatorUidx(qps[i].qpn());
            }
        }
        catch (final RuntimeException ex)
        {
            context.close();
            memory.close();
            throw ex;
        }
    }

    /**
     * Opens the device and builds {@code n} connected QPs on one CQ.
     *
     * @param n QPs, at least 1
     * @return the QPs, ready to post
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public static EmulatedQps open(final int n)
    {
        if (n < 1)
        {
            throw new IllegalArgumentException("need at least 1 QP, got " + n);
        }
        return new EmulatedQps(n);
    }

    private static QpConfig config(final CompletionQueue cq)
    {
        return QpConfig.builder(QpType.RC, cq).maxSendWr(EmulatedQp.MAX_SEND_WR).maxRecvWr(1).maxSendSge(1)
            .maxRecvSge(1).maxInlineData(EmulatedQp.MAX_INLINE).build();
    }

    /** Registered memory: {@link EmulatedQp#MR_BYTES} bytes. */
    public MemorySegment memory()
    {
        return mr.memory();
    }

    /** Destroys everything (closing the context closes the QPs, CQs, MR and PD it made). */
    @Override
    public void close()
    {
        context.close();
        memory.close();
    }
}
