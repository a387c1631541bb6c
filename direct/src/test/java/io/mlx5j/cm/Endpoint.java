// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** One side of a test connection: what a QpFactory makes on the device the CM picked, closed in one go. */
final class Endpoint implements AutoCloseable
{
    final Arena memory = Arena.ofShared();
    final MemorySegment buf = memory.allocate(4096, 4096);
    Context context;
    ProtectionDomain pd;
    CompletionQueue cq;
    MemoryRegion mr;
    int factoryCalls;

    /** The QpFactory: an RC (or UD) QP of 16/16 WQEs on {@code id}'s device, with a 4 KiB buffer registered. */
    QueuePair create(final CmId id, final QpType type)
    {
        factoryCalls++;
        open(id.deviceName());
        return pd.createQp(QpConfig.builder(type, cq).maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1)
            .build());
    }

    /** Context, PD, CQ and MR on {@code device}, once (before the QP when their keys go into private data). */
    void open(final String device)
    {
        if (context == null)
        {
            context = Context.open(device);
            pd = context.allocPd();
            cq = context.createCq(64);
            mr = pd.register(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        }
    }

    QueuePair rc(final CmId id)
    {
        return create(id, QpType.RC);
    }

    @Override
    public void close()
    {
        if (context != null)
        {
            context.close();
        }
        memory.close();
    }
}
