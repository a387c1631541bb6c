package io.mlx5j.direct.tool;

import io.mlx5j.direct.PeerInfo;
import io.mlx5j.direct.SendFlags;

/**
 * The measuring loops. Each takes the endpoint that initiates ({@code me}) and, in loopback, the endpoint that
 * answers ({@code peer}, driven by the same thread between the initiator's steps); in two-process runs {@code peer} is
 * null and the answering loop runs in the other process ({@link #writeLatResponder}, {@link #sendLatResponder},
 * {@link #sendBwResponder}).
 * <p>
 * No allocation and no exceptions inside the loops except on failure: an error completion, or a stall (nothing
 * arrives within {@code stallNanos}; checked every 4096 spins), which names the iteration so a lost peer is never a
 * silent hang. Work request ids are iteration numbers.
 */
final class PerfLoops
{
    private static final int SPIN_CHECK_MASK = 4095;

    private PerfLoops()
    {
    }

    // ----------------------------------------------------------------------------------------------- latency

    /**
     * write_lat initiator: write the message with marker {@code (byte) (i + 1)} in its last byte, then spin until the
     * peer's write puts the same marker into the last byte of our receive area. Sample = that round trip.
     */
    static long[] writeLat(final Endpoint me, final Endpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int last = size - 1;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long iterations = o.iterations();
        final long[] samples = new long[(int) iterations];
        for (long i = 0; i < iterations; i++)
        {
            final byte marker = (byte) (i + 1);
            me.setSendByte(last, marker);
            final long t0 = System.nanoTime();
            final long deadline = t0 + stallNanos;
            postWrite(me, i, size, flags, deadline);
            if (peer != null)
            {
                awaitByte(peer, last, marker, deadline, i);
                peer.setSendByte(last, marker);
                postWrite(peer, i, size, flags, deadline);
            }
            awaitByte(me, last, marker, deadline, i);
            samples[(int) i] = System.nanoTime() - t0;
            drainSends(me);
            if (peer != null)
            {
                drainSends(peer);
            }
            progress.tick(i + 1);
        }
        return samples;
    }

    /**
     * write_lat in the answering process: wait for marker i + 1, write it back. Samples are the times between
     * consecutive posts (perftest's way on both sides), so there are iterations - 1 of them.
     */
    static long[] writeLatResponder(final Endpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int last = size - 1;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long iterations = o.iterations();
        final long[] samples = new long[(int) Math.max(1, iterations - 1)];
        long previous = 0;
        for (long i = 0; i < iterations; i++)
        {
            final byte marker = (byte) (i + 1);
            awaitByte(me, last, marker, System.nanoTime() + stallNanos, i);
            me.setSendByte(last, marker);
            final long now = System.nanoTime();
            if (i > 0)
            {
                samples[(int) i - 1] = now - previous;
            }
            previous = now;
            postWrite(me, i, size, flags, now + stallNanos);
            drainSends(me);
            progress.tick(i + 1);
        }
        return samples;
    }

    /** send_lat initiator: SEND, then poll until the peer's SEND has completed a receive here. */
    static long[] sendLat(final Endpoint me, final Endpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long iterations = o.iterations();
        final long[] samples = new long[(int) iterations];
        for (long i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            final long deadline = t0 + stallNanos;
            postSend(me, i, size, flags, deadline);
            if (peer != null)
            {
                awaitRecv(peer, i + 1, deadline, i);
                postSend(peer, i, size, flags, deadline);
            }
            awaitRecv(me, i + 1, deadline, i);
            samples[(int) i] = System.nanoTime() - t0;
            progress.tick(i + 1);
        }
        return samples;
    }

    /** send_lat in the answering process: receive, SEND back; samples between consecutive posts. */
    static long[] sendLatResponder(final Endpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long iterations = o.iterations();
        final long[] samples = new long[(int) Math.max(1, iterations - 1)];
        long previous = 0;
        for (long i = 0; i < iterations; i++)
        {
            awaitRecv(me, i + 1, System.nanoTime() + stallNanos, i);
            final long now = System.nanoTime();
            if (i > 0)
            {
                samples[(int) i - 1] = now - previous;
            }
            previous = now;
            postSend(me, i, size, flags, now + stallNanos);
            progress.tick(i + 1);
        }
        return samples;
    }

    /** read_lat / atomic_lat: one signaled READ (of the peer's receive area) or FETCH_ADD(1), until it completes. */
    static long[] oneSidedLat(final Endpoint me, final boolean atomic, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final long iterations = o.iterations();
        final long[] samples = new long[(int) iterations];
        final PeerInfo remote = me.remote;
        final long raddr = remote.addr();
        final int rkey = remote.rkey();
        for (long i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            final long deadline = t0 + stallNanos;
            final int flags = SendFlags.SIGNALED | SendFlags.RING;
            long spins = 0;
            while (!(atomic
                ? me.sq.fetchAdd(i, me.sendArea, me.lkey, raddr, rkey, 1L, flags)
                : me.sq.rdmaRead(i, me.sendArea, me.lkey, size, raddr, rkey, flags)))
            {
                me.pollOnce();
                spins = checkStall(spins, deadline, "send queue full", i);
            }
            while (me.lastSendWrId != i)
            {
                if (me.pollOnce() == 0)
                {
                    spins = checkStall(spins, deadline, atomic ? "atomic completion" : "READ completion", i);
                }
            }
            samples[(int) i] = System.nanoTime() - t0;
            progress.tick(i + 1);
        }
        return samples;
    }

    // --------------------------------------------------------------------------------------------- bandwidth

    /**
     * *_bw initiator: keep up to tx-depth WQEs in flight, signal every cq-mod-th (and the last), ring once per
     * {@code postList} WQEs. Returns the nanoseconds from the first post to the last completion. In loopback send_bw
     * the same thread also polls the receiver (which re-posts each receive as it completes).
     */
    static long bandwidth(final Endpoint me, final Endpoint peer, final PerfOptions o, final int postList,
        final Progress progress, final long stallNanos)
    {
        final PerfTest test = o.test();
        final int size = o.size();
        final long iterations = o.iterations();
        final int window = o.txDepth();
        final int base = o.inline() ? SendFlags.INLINE : 0;
        final PeerInfo remote = me.remote;
        final long raddr = remote.addr();
        final int rkey = remote.rkey();
        me.sq.signalEvery(o.cqMod());
        long posted = 0;
        long completed = 0;
        long spins = 0;
        long deadline = System.nanoTime() + stallNanos;
        final long t0 = System.nanoTime();
        while (completed < iterations)
        {
            while (posted < iterations && posted - completed < window)
            {
                final boolean lastOne = posted == iterations - 1;
                final int flags = base | (lastOne ? SendFlags.SIGNALED : 0)
                    | ((posted + 1) % postList == 0 || lastOne ? SendFlags.RING : 0);
                final boolean ok = switch (test)
                {
                    case WRITE_BW -> me.sq.rdmaWrite(posted, me.sendArea, me.lkey, size, raddr, rkey, flags);
                    case READ_BW -> me.sq.rdmaRead(posted, me.sendArea, me.lkey, size, raddr, rkey, flags);
                    case ATOMIC_BW -> me.sq.fetchAdd(posted, me.sendArea, me.lkey, raddr, rkey, 1L, flags);
                    default -> me.sq.send(posted, me.sendArea, me.lkey, size, flags);
                };
                if (!ok)
                {
                    break;
                }
                posted++;
            }
            me.sq.ring(); // a batch cut short by the window or a full ring still goes out (0 if nothing is staged)
            final int polled = me.pollOnce();
            if (peer != null)
            {
                peer.pollOnce();
            }
            if (polled != 0)
            {
                completed = me.lastSendWrId + 1;
                deadline = System.nanoTime() + stallNanos;
                progress.tick(completed);
            }
            else
            {
                spins = checkStall(spins, deadline, "completions", completed);
            }
        }
        final long elapsed = System.nanoTime() - t0;
        if (peer != null && test == PerfTest.SEND_BW)
        {
            awaitRecv(peer, iterations, System.nanoTime() + stallNanos, iterations);
        }
        return elapsed;
    }

    /** send_bw in the receiving process: count (and re-post) receives until {@code iterations} arrived. */
    static void sendBwResponder(final Endpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final long iterations = o.iterations();
        long seen = me.recvDone;
        long deadline = System.nanoTime() + stallNanos;
        long spins = 0;
        while (me.recvDone < iterations)
        {
            if (me.pollOnce() != 0 && me.recvDone != seen)
            {
                seen = me.recvDone;
                deadline = System.nanoTime() + stallNanos;
                progress.tick(seen);
            }
            else
            {
                spins = checkStall(spins, deadline, "receives", me.recvDone);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static void postWrite(final Endpoint e, final long wrId, final int size, final int flags,
        final long deadline)
    {
        long spins = 0;
        while (!e.sq.rdmaWrite(wrId, e.sendArea, e.lkey, size, e.remote.addr(), e.remote.rkey(), flags))
        {
            e.pollOnce();
            spins = checkStall(spins, deadline, "send queue full", wrId);
        }
    }

    private static void postSend(final Endpoint e, final long wrId, final int size, final int flags,
        final long deadline)
    {
        long spins = 0;
        while (!e.sq.send(wrId, e.sendArea, e.lkey, size, flags))
        {
            e.pollOnce();
            spins = checkStall(spins, deadline, "send queue full", wrId);
        }
    }

    private static void awaitByte(final Endpoint e, final int offset, final byte marker, final long deadline,
        final long iteration)
    {
        long spins = 0;
        while (e.recvByte(offset) != marker)
        {
            Thread.onSpinWait();
            spins = checkStall(spins, deadline, "the peer's RDMA WRITE", iteration);
        }
    }

    private static void awaitRecv(final Endpoint e, final long count, final long deadline, final long iteration)
    {
        long spins = 0;
        while (e.recvDone < count)
        {
            if (e.pollOnce() == 0)
            {
                spins = checkStall(spins, deadline, "the peer's SEND", iteration);
            }
        }
    }

    /** Retires signaled writes so the ring never fills (write_lat polls no receives). */
    private static void drainSends(final Endpoint e)
    {
        while (e.pollOnce() != 0)
        {
            // each call handles one completion
        }
    }

    private static long checkStall(final long spins, final long deadline, final String waitingFor,
        final long iteration)
    {
        if ((spins & SPIN_CHECK_MASK) == SPIN_CHECK_MASK && System.nanoTime() - deadline > 0)
        {
            throw new IllegalStateException("stalled at iteration " + iteration + ": no " + waitingFor
                + " within the stall timeout (peer gone, or the QP in error?)");
        }
        return spins + 1;
    }
}
