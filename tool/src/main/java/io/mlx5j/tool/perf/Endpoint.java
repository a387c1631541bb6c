// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One side of a perf test: a QP with its completion queue(s) and receive queue, and one registered buffer. The
 * transport's part adds what it sends and how it polls: {@link RcEndpoint}, an RC QP connected to its peer (perftest's
 * ib_* tests), and {@link RawEndpoint}, a RAW_PACKET QP behind a flow rule (its raw_ethernet_* tests). The measuring
 * loops ({@link PerfLoops}) are written once against the operations declared here: post this run's message, poll the
 * send side, poll the receive side.
 * <p>
 * Setup and teardown are control path. Thread model: after setup one thread drives the queues and pollers (in
 * loopback that one thread drives both endpoints, which is allowed: each queue is still used by a single thread).
 */
abstract sealed class Endpoint implements AutoCloseable permits RcEndpoint, RawEndpoint
{
    final QueuePair qp;
    /** The CQ of the send queue, and of the receive queue unless that has its own ({@link #recvCqObject}). */
    final CompletionQueue sendCqObject;
    /** The CQ of the receive queue: {@link #sendCqObject} when one CQ serves both queues. */
    final CompletionQueue recvCqObject;
    final Arena memory;
    final MemoryRegion mr;
    final MemorySegment buffer;
    final int lkey;
    RecvQueue rq;
    /** Receive completions so far (each receive is posted again as it completes). */
    long received;
    /** Send-side completions: the wr_id of the newest + 1 (wr_ids are message numbers), 0 before the first. */
    long sendsRetired;

    /**
     * Creates the CQ(s), the QP and the registered buffer; on failure closes what it made, so the PD and the context
     * can still close.
     *
     * @param ownRecvCq  the receive queue gets a CQ of its own (else one CQ serves both queues)
     * @param sendDepth  send WQEs the QP holds
     * @param recvDepth  receive WQEs the QP holds (at least 1 is asked for; none for an XRC_SEND QP, whose CQ is
     *                   still sized for them: the XRC SRQ's receives complete there, nor for a DCI, which only sends)
     * @param inlineSize max inline data requested for the QP
     * @param bytes      size of the registered buffer (page-aligned)
     * @param access     the buffer's access flags
     */
    Endpoint(final Context context, final ProtectionDomain pd, final QpType type, final boolean ownRecvCq,
        final int sendDepth, final int recvDepth, final int inlineSize, final long bytes, final int access)
    {
        this(context, pd, type, ownRecvCq, sendDepth, recvDepth, inlineSize, bytes, access, 1);
    }

    /**
     * @param cqShare how many QPs the one CQ serves (its size is that many times one QP's share; the subclass
     *                creates the QPs past the first, perftest's -q)
     */
    Endpoint(final Context context, final ProtectionDomain pd, final QpType type, final boolean ownRecvCq,
        final int sendDepth, final int recvDepth, final int inlineSize, final long bytes, final int access,
        final int cqShare)
    {
        CompletionQueue scq = null;
        CompletionQueue rcq = null;
        QueuePair createdQp = null;
        Arena createdMemory = null;
        MemoryRegion createdMr = null;
        try
        {
            if (ownRecvCq)
            {
                scq = context.createCq(sendDepth + 1);
                rcq = context.createCq(recvDepth + 1);
            }
            else
            {
                scq = context.createCq(cqShare * (sendDepth + recvDepth) + 1);
                rcq = scq;
            }
            QpConfig.Builder config = QpConfig.builder(type, scq);
            if (ownRecvCq)
            {
                config = config.recvCq(rcq);
            }
            // an XRC INI QP has no receive queue (its receives are the peer's XRC SRQ's), nor has a DCI (it only
            // sends): libmlx5 takes none
            final boolean sendOnly = type == QpType.XRC_SEND || type == QpType.DCI;
            createdQp = pd.createQp(config.maxSendWr(sendDepth).maxRecvWr(sendOnly ? 0 : Math.max(1, recvDepth))
                .maxSendSge(1).maxRecvSge(sendOnly ? 0 : 1).maxInlineData(inlineSize).build());
            createdMemory = Arena.ofShared();
            createdMr = pd.register(createdMemory.allocate(bytes, 4096), access);
        }
        catch (final RuntimeException ex)
        {
            closeAll(createdQp, scq, rcq, createdMr, createdMemory);
            throw ex;
        }
        this.sendCqObject = scq;
        this.recvCqObject = rcq;
        this.qp = createdQp;
        this.memory = createdMemory;
        this.mr = createdMr;
        this.buffer = mr.memory();
        this.lkey = mr.lkey();
    }

    /**
     * Readies this endpoint for one run (one size of a sweep): what {@link #post} sends, and every how many sends
     * one is signaled ({@link PerfOptions#signalInterval()}).
     */
    abstract void begin(PerfOptions run);

    /** Posts this run's message with work request id {@code wrId}; false when the send ring is full (none posted). */
    abstract boolean post(long wrId, int flags);

    /** Polls the send side once: 1 when a completion was seen (it advances {@link #sendsRetired}); errors throw. */
    abstract int pollSend();

    /** Polls the receive side once: 1 when a completion was seen (a receive is counted and posted again). */
    abstract int pollRecv();

    /**
     * Between the iterations of a ping-pong: retires the sends no wait of the loop polls. Nothing where one CQ serves
     * both queues (the waits for receives poll it); the send CQ where it is the send queue's own.
     */
    abstract void retireSends();

    /** Whether this side receives the peer's messages (its receives then stay posted). */
    abstract boolean receives();

    /** The message this transport moves, for the messages of a stall ("SEND", "frame"). */
    abstract String messageName();

    /** What to look at when nothing arrives, for the messages of a stall. */
    abstract String stallHint();

    /** How many QPs this side posts on round-robin (perftest's -q); 1 but for an {@link RcEndpoint} built so. */
    int qpCount()
    {
        return 1;
    }

    /** Address of the QP's BlueFlame register: two QPs of one context may be given the same one. */
    final long bfRegister()
    {
        return qp.rings().bfReg().address();
    }

    @Override
    public void close()
    {
        closeAll(qp, sendCqObject, recvCqObject, mr, memory);
    }

    /** Dependents first: the QP uses its CQs, the memory outlives the MR; nulls skipped, a shared CQ closed once. */
    private static void closeAll(final QueuePair qp, final CompletionQueue scq, final CompletionQueue rcq,
        final MemoryRegion mr, final Arena memory)
    {
        if (qp != null)
        {
            qp.close();
        }
        if (scq != null)
        {
            scq.close();
        }
        if (rcq != null && rcq != scq)
        {
            rcq.close();
        }
        if (mr != null)
        {
            mr.close();
        }
        if (memory != null)
        {
            memory.close();
        }
    }
}
