package io.mlx5j.tool.perf;

import io.mlx5j.direct.Access;
import io.mlx5j.direct.AddressVector;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CompletionQueue;
import io.mlx5j.direct.Context;
import io.mlx5j.direct.DirectCq;
import io.mlx5j.direct.DirectRecvQueue;
import io.mlx5j.direct.DirectSendQueue;
import io.mlx5j.direct.Gid;
import io.mlx5j.direct.InitAttributes;
import io.mlx5j.direct.MemoryRegion;
import io.mlx5j.direct.PeerInfo;
import io.mlx5j.direct.PortAttributes;
import io.mlx5j.direct.ProtectionDomain;
import io.mlx5j.direct.QpConfig;
import io.mlx5j.direct.QpType;
import io.mlx5j.direct.QueuePair;
import io.mlx5j.direct.RtrAttributes;
import io.mlx5j.direct.RtsAttributes;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One side of a perf test: a CQ, an RC QP with its Java send queue, receive queue and CQ poller, and one registered
 * buffer. Setup and teardown are control path; the fields the measuring loops use are final.
 * <pre>
 *   buffer:  [ recv area: peers write/send/read here | send area: the source of our writes/sends/read targets ]
 *            0                                   areaSize                                           2*areaSize
 * </pre>
 * Two areas because write_lat spins on the last byte of the area the peer writes: were it also our source, the
 * marker we set before posting would satisfy our own spin.
 * <p>
 * Thread model: after setup, one thread drives {@link #sq}, {@link #rq} and {@link #cq} (in loopback that one thread
 * drives both endpoints, which is allowed: each queue is still used by a single thread).
 */
final class RcEndpoint implements AutoCloseable
{
    static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final Context context;
    final PortAttributes port;
    final Gid gid;
    final int gidIndex;
    final CompletionQueue cqObject;
    final QueuePair qp;
    final Arena memory;
    final MemoryRegion mr;
    final MemorySegment buffer;
    final long areaSize;
    final long recvArea;
    final long sendArea;
    final int lkey;
    DirectSendQueue sq;
    DirectRecvQueue rq;
    DirectCq cq;
    final Completion wc = new Completion();
    final int psn;
    /** The peer, once connected. */
    PeerInfo remote;
    /** RECV completions seen so far. */
    long recvDone;
    /** wr_id of the newest send-side completion (wr_ids are iteration numbers), -1 before the first. */
    long lastSendWrId = -1;
    /** Length each receive WQE offers (the whole receive area). */
    int recvLength;

    /**
     * @param sendDepth    send WQEs the QP holds
     * @param recvDepth    receive WQEs the QP holds (at least 1)
     * @param inlineSize   max inline data requested for the QP
     * @param areaSize     bytes per area (at least the message size, 8-byte aligned)
     * @param gidIndex     -1 = no GID unless the port is Ethernet (then 0)
     */
    RcEndpoint(final Context context, final ProtectionDomain pd, final int ibPort, final int gidIndex,
        final int sendDepth, final int recvDepth, final int inlineSize, final long areaSize)
    {
        this.context = context;
        this.port = context.queryPort(ibPort);
        this.gidIndex = gidIndex >= 0 ? gidIndex : port.isEthernet() ? 0 : -1;
        this.gid = this.gidIndex >= 0 ? context.queryGid(ibPort, this.gidIndex) : Gid.ZERO;
        this.areaSize = align(Math.max(areaSize, 64), 64);
        CompletionQueue createdCq = null;
        QueuePair createdQp = null;
        Arena createdMemory = null;
        MemoryRegion createdMr = null;
        try
        {
            createdCq = context.createCq(sendDepth + recvDepth + 1);
            createdQp = pd.createQp(QpConfig.builder(QpType.RC, createdCq).maxSendWr(sendDepth)
                .maxRecvWr(Math.max(1, recvDepth)).maxSendSge(1).maxRecvSge(1).maxInlineData(inlineSize).build());
            createdMemory = Arena.ofShared();
            createdMr = pd.register(createdMemory.allocate(2 * this.areaSize, 4096), Access.ALL_REMOTE);
        }
        catch (final RuntimeException ex)
        {
            // undo in reverse so the PD and context can still close
            closeAll(createdQp, createdCq, createdMr, createdMemory);
            throw ex;
        }
        this.cqObject = createdCq;
        this.qp = createdQp;
        this.memory = createdMemory;
        this.mr = createdMr;
        this.buffer = mr.memory();
        this.recvArea = buffer.address();
        this.sendArea = buffer.address() + this.areaSize;
        this.lkey = mr.lkey();
        this.psn = ThreadLocalRandom.current().nextInt(1 << 24);
    }

    /**
     * Builds the Java data path over the QP's rings. {@code sharedRegister}: another QP posted by another send queue
     * uses the same BlueFlame register (see {@link #bfRegister()}), so rings take its lock as libmlx5 does.
     */
    RcEndpoint directPath(final DoorbellMode mode, final boolean sharedRegister)
    {
        sq = DirectSendQueue.of(qp, mode, sharedRegister);
        rq = DirectRecvQueue.of(qp);
        cq = DirectCq.of(cqObject).attach(sq).attach(rq);
        return this;
    }

    /** Address of the QP's BlueFlame register: two QPs of one context may be given the same one. */
    long bfRegister()
    {
        return qp.rings().bfReg().address();
    }

    /** What the peer needs: addressing and our receive area as the RDMA target. */
    PeerInfo local()
    {
        return PeerInfo.of(port.lid(), qp.qpn(), psn, gid).withBuffer(mr.rkey(), recvArea, areaSize);
    }

    /**
     * RESET to RTS towards {@code remote}, as rc_pingpong's pp_connect_ctx does, but with remote access for RDMA and
     * {@code rdAtomic} outstanding READ/atomic requests each way.
     */
    void connect(final PeerInfo remote, final int pathMtu, final int rdAtomic)
    {
        connect(remote, pathMtu, rdAtomic, rdAtomic);
    }

    /**
     * {@code destRdAtomic}: READs/atomics the peer may have outstanding at us (what we told it, perftest's
     * out_reads); {@code rdAtomic}: ours at the peer (at most what it told us).
     */
    void connect(final PeerInfo remote, final int pathMtu, final int destRdAtomic, final int rdAtomic)
    {
        connect(remote, pathMtu, destRdAtomic, rdAtomic, IbOptions.DEFAULT_QP_TIMEOUT);
    }

    /** {@code qpTimeout}: the local ACK timeout exponent (perftest's -u), retried 7 times. */
    void connect(final PeerInfo remote, final int pathMtu, final int destRdAtomic, final int rdAtomic,
        final int qpTimeout)
    {
        final AddressVector path = remote.gid().interfaceId() != 0 || port.isEthernet()
            ? AddressVector.global(port.port(), remote.gid(), Math.max(0, gidIndex), 1, 0)
            : AddressVector.ib(port.port(), remote.lid(), 0);
        qp.toInit(InitAttributes.connected(port.port(), Access.ALL_REMOTE));
        qp.toRtr(new RtrAttributes(pathMtu, remote.qpn(), remote.psn(), destRdAtomic, 12, path));
        qp.toRts(new RtsAttributes(psn, qpTimeout, 7, 7, rdAtomic));
        this.remote = remote;
    }

    /** Posts {@code n} receives of the whole receive area and rings once (setup). */
    void postReceives(final int n)
    {
        recvLength = (int) Math.min(Integer.MAX_VALUE, areaSize);
        for (int i = 0; i < n; i++)
        {
            if (!rq.post(i, recvArea, lkey, recvLength))
            {
                throw new IllegalStateException("receive queue of " + qp + " holds fewer than " + n + " WQEs");
            }
        }
        rq.ring();
    }

    /**
     * Polls at most one completion: a receive is counted and replaced by a new receive at once; a send-side
     * completion records its wr_id. An error completion throws, naming it. Returns 1 if something was polled.
     */
    int pollOnce()
    {
        final int n = poll();
        if (n < 0)
        {
            throw new IllegalStateException(errorText());
        }
        return n;
    }

    /** {@link #pollOnce}, but an error completion returns -1 and stays in {@link #wc}. */
    private int poll()
    {
        if (cq.poll(wc) == 0)
        {
            return 0;
        }
        if (!wc.isSuccess())
        {
            return -1;
        }
        if (wc.opcode() == WcOpcode.RECV)
        {
            recvDone++;
            if (!rq.post(recvDone, recvArea, lkey, recvLength))
            {
                throw new IllegalStateException("receive queue full after a receive completed on " + qp);
            }
            rq.ring();
        }
        else
        {
            lastSendWrId = wc.wrId();
        }
        return 1;
    }

    /** Names the error completion in {@link #wc}. */
    String errorText()
    {
        return "error completion on QP 0x" + Integer.toHexString(qp.qpn()) + ": " + wc;
    }

    /**
     * Waits until every WQE posted so far has completed: a signaled NOP behind them (RC completes in order, so its
     * CQE means the earlier, possibly unsignaled, WRITEs and SENDs are done). Before the QP is destroyed, so that the
     * last message of a run reaches a peer that is still waiting for it. An error completion throws, naming it.
     */
    void quiesce(final long stallNanos)
    {
        if (!settle(stallNanos))
        {
            throw new IllegalStateException(errorText());
        }
    }

    /**
     * {@link #quiesce}, but the first error completion ends the wait and returns false, leaving it in {@link #wc}
     * (the WQEs behind it would only be flushed): for a caller that may excuse it, as the end of a write_lat
     * duration run whose peer left first does.
     */
    boolean settle(final long stallNanos)
    {
        final long deadline = System.nanoTime() + stallNanos;
        while (!sq.nop(-1L, SendFlags.SIGNALED | SendFlags.RING))
        {
            if (poll() < 0)
            {
                return false;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("send queue of " + qp + " still full at the end of the run");
            }
        }
        while (sq.outstanding() != 0)
        {
            final int n = poll();
            if (n < 0)
            {
                return false;
            }
            if (n == 0 && System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(sq.outstanding() + " WQEs of " + qp + " never completed");
            }
        }
        return true;
    }

    /** Fills the send area with {@link #sendPattern} and the receive area with {@link #recvPattern}. */
    void fillPatterns()
    {
        for (long i = 0; i < areaSize; i++)
        {
            buffer.set(ValueLayout.JAVA_BYTE, i, recvPattern(i));
            buffer.set(ValueLayout.JAVA_BYTE, areaSize + i, sendPattern(i));
        }
    }

    /** What every side sends from: a shifted copy never matches it (7 * shift is not 0 mod 256 for shift < 256). */
    static byte sendPattern(final long i)
    {
        return (byte) (i * 7 + 0x11);
    }

    /** What every receive area holds before anything arrives: differs from sendPattern at every offset. */
    static byte recvPattern(final long i)
    {
        return (byte) ~sendPattern(i);
    }

    /** First offset in [0, length) of the receive area (or the send area) not holding sendPattern, or -1. */
    long firstMismatch(final boolean sendArea, final long length)
    {
        final long base = sendArea ? areaSize : 0;
        for (long i = 0; i < length; i++)
        {
            if (buffer.get(ValueLayout.JAVA_BYTE, base + i) != sendPattern(i))
            {
                return i;
            }
        }
        return -1;
    }

    byte recvByte(final long offset)
    {
        return (byte) BYTE.getVolatile(buffer, offset);
    }

    void setSendByte(final long offset, final byte value)
    {
        BYTE.setRelease(buffer, areaSize + offset, value);
    }

    static long align(final long value, final long to)
    {
        return (value + to - 1) & -to;
    }

    @Override
    public void close()
    {
        closeAll(qp, cqObject, mr, memory);
    }

    /** Dependents first: the QP uses the CQ; the memory outlives the MR. Nulls are skipped. */
    private static void closeAll(final QueuePair qp, final CompletionQueue cq, final MemoryRegion mr,
        final Arena memory)
    {
        if (qp != null)
        {
            qp.close();
        }
        if (cq != null)
        {
            cq.close();
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
