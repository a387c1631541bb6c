// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;

/**
 * Two QPs of one type on one device, each driven only by mlx5j's direct path: a posts, b receives (and the other
 * way round), each with its own CQ. Memory: one MR of {@link #BYTES} bytes per side.
 */
final class Pair
{
    static final int BYTES = 1 << 16;

    final Rig rig;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final QueuePair a;
    final QueuePair b;
    final SendQueue sqA;
    final SendQueue sqB;
    final RecvQueue rqA;
    final RecvQueue rqB;
    final CqPoller dcqA;
    final CqPoller dcqB;
    final MemoryRegion mrA;
    final MemoryRegion mrB;

    Pair(final Rig rig, final QpType type)
    {
        this(rig, type, false, RtsAttributes.of(0x100), DoorbellMode.AUTO);
    }

    /**
     * @param sqSigAll QPs created with sq_sig_all (requester scatter-to-CQE needs it)
     * @param rts      the RTS attributes of a (retry / RNR behaviour)
     */
    Pair(final Rig rig, final QpType type, final boolean sqSigAll, final RtsAttributes rts, final DoorbellMode mode)
    {
        this.rig = rig;
        cqA = rig.cq(256);
        cqB = rig.cq(256);
        a = rig.pd.createQp(QpConfig.builder(type, cqA).maxSendWr(64).maxRecvWr(64).maxSendSge(4).maxRecvSge(4)
            .maxInlineData(128).sqSigAll(sqSigAll).build());
        b = rig.pd.createQp(QpConfig.builder(type, cqB).maxSendWr(64).maxRecvWr(64).maxSendSge(4).maxRecvSge(4)
            .maxInlineData(128).sqSigAll(sqSigAll).build());
        if (type == QpType.UD)
        {
            rig.connect(a, a);
            rig.connect(b, b);
        }
        else
        {
            final int access = type == QpType.UC ? Access.LOCAL_WRITE | Access.REMOTE_WRITE : Access.ALL_REMOTE;
            a.toInit(InitAttributes.connected(1, access));
            a.toRtr(RtrAttributes.of(rig.port.activeMtu(), rig.peer(b, 0x200), rig.path()));
            a.toRts(rts);
            b.toInit(InitAttributes.connected(1, access));
            b.toRtr(RtrAttributes.of(rig.port.activeMtu(), rig.peer(a, 0x100), rig.path()));
            b.toRts(RtsAttributes.of(0x200));
        }
        sqA = SendQueue.of(a, mode);
        sqB = SendQueue.of(b, mode);
        rqA = RecvQueue.of(a);
        rqB = RecvQueue.of(b);
        dcqA = CqPoller.of(cqA).attach(sqA).attach(rqA);
        dcqB = CqPoller.of(cqB).attach(sqB).attach(rqB);
        mrA = rig.memory(BYTES);
        mrB = rig.memory(BYTES);
    }
}
