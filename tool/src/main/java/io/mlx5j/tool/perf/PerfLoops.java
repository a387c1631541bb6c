package io.mlx5j.tool.perf;

import io.mlx5j.direct.PeerInfo;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.tool.perf.report.BandwidthPeak;

/**
 * The measuring loops. Each takes the endpoint that initiates ({@code me}) and, in loopback, the endpoint that
 * answers ({@code peer}, driven by the same thread between the initiator's steps); in two-process runs {@code peer} is
 * null and the answering loop runs in the other process ({@link #writeLatResponder}, {@link #sendLatResponder},
 * {@link #sendBwResponder}).
 * <p>
 * No allocation and no exceptions inside the loops except on failure: an error completion, or a stall (nothing
 * arrives within {@code stallNanos}; checked every 4096 spins), which names the iteration so a lost peer is never a
 * silent hang. Work request ids are iteration numbers, offset where a loop waits for its own completions (so they keep
 * rising across the runs of a sweep).
 */
final class PerfLoops
{
    private static final int SPIN_CHECK_MASK = 4095;

    private PerfLoops()
    {
    }

    /**
     * A latency run: the samples (iteration runs), or for a duration run ({@code samples} null) the round trips
     * counted while sampling and the sampling time.
     */
    record Latency(long[] samples, long iterations, long sampleNanos)
    {
        boolean timed()
        {
            return samples == null;
        }
    }

    /**
     * A bandwidth run: messages and the nanoseconds from the first post to the last completion (iteration runs), or
     * the messages completed while sampling and the sampling time (duration runs); {@code peak} as recorded, or null.
     */
    record Bandwidth(long iterations, long nanos, BandwidthPeak peak)
    {
    }

    // ----------------------------------------------------------------------------------------------- latency

    /**
     * write_lat initiator: write the message with marker {@code (byte) (i + 1)} in its last byte, wait for that WRITE's
     * completion, then spin until the peer's write puts the same marker into the last byte of our receive area
     * (perftest's order in run_iter_lat_write). Sample = that round trip.
     */
    static Latency writeLat(final RcEndpoint me, final RcEndpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int last = size - 1;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.SIGNALED | SendFlags.RING;
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) iterations] : null;
        final long wrBase = me.lastSendWrId + 1;   // wr_ids keep rising across the runs of a sweep
        final long peerWrBase = peer == null ? 0 : peer.lastSendWrId + 1;
        long counted = 0;
        for (long i = 0; i < iterations; i++)
        {
            final byte marker = (byte) (i + 1);
            me.setSendByte(last, marker);
            final long t0 = System.nanoTime();
            final long deadline = t0 + stallNanos;
            postWrite(me, wrBase + i, size, flags, deadline);
            if (!awaitSend(me, wrBase + i, deadline, i, window))
            {
                break;
            }
            if (peer != null)
            {
                if (!awaitByte(peer, last, marker, deadline, i, window))
                {
                    break;
                }
                peer.setSendByte(last, marker);
                postWrite(peer, peerWrBase + i, size, flags, deadline);
                if (!awaitSend(peer, peerWrBase + i, deadline, i, window))
                {
                    break;
                }
            }
            if (!awaitByte(me, last, marker, deadline, i, window))
            {
                break;
            }
            final long now = System.nanoTime();
            if (samples != null)
            {
                samples[(int) i] = now - t0;
            }
            else if (window.sampling(now))
            {
                counted++;
            }
            progress.tick(i + 1);
        }
        return result(samples, counted, window);
    }

    /**
     * write_lat in the answering process: wait for marker i + 1, write it back. Samples are the times between
     * consecutive posts (perftest's way on both sides), so there are iterations - 1 of them.
     */
    static Latency writeLatResponder(final RcEndpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int last = size - 1;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.SIGNALED | SendFlags.RING;
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) Math.max(1, iterations - 1)] : null;
        final long wrBase = me.lastSendWrId + 1;
        long counted = 0;
        long previous = 0;
        for (long i = 0; i < iterations; i++)
        {
            final byte marker = (byte) (i + 1);
            if (!awaitByte(me, last, marker, System.nanoTime() + stallNanos, i, window))
            {
                break;
            }
            me.setSendByte(last, marker);
            final long now = System.nanoTime();
            if (samples != null)
            {
                if (i > 0)
                {
                    samples[(int) i - 1] = now - previous;
                }
            }
            else if (window.sampling(now))
            {
                counted++;
            }
            previous = now;
            postWrite(me, wrBase + i, size, flags, now + stallNanos);
            if (!awaitSend(me, wrBase + i, now + stallNanos, i, window))
            {
                break;
            }
            progress.tick(i + 1);
        }
        return result(samples, counted, window);
    }

    /** send_lat initiator: SEND, then poll until the peer's SEND has completed a receive here. */
    static Latency sendLat(final RcEndpoint me, final RcEndpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) iterations] : null;
        final long base = me.recvDone;
        final long peerBase = peer == null ? 0 : peer.recvDone;
        long counted = 0;
        for (long i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            final long deadline = t0 + stallNanos;
            postSend(me, i, size, flags, deadline);
            if (peer != null)
            {
                if (!awaitRecv(peer, peerBase + i + 1, deadline, i, window))
                {
                    break;
                }
                postSend(peer, i, size, flags, deadline);
            }
            if (!awaitRecv(me, base + i + 1, deadline, i, window))
            {
                break;
            }
            final long now = System.nanoTime();
            if (samples != null)
            {
                samples[(int) i] = now - t0;
            }
            else if (window.sampling(now))
            {
                counted++;
            }
            progress.tick(i + 1);
        }
        return result(samples, counted, window);
    }

    /** send_lat in the answering process: receive, SEND back; samples between consecutive posts. */
    static Latency sendLatResponder(final RcEndpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) Math.max(1, iterations - 1)] : null;
        final long base = me.recvDone;
        long counted = 0;
        long previous = 0;
        for (long i = 0; i < iterations; i++)
        {
            if (!awaitRecv(me, base + i + 1, System.nanoTime() + stallNanos, i, window))
            {
                break;
            }
            final long now = System.nanoTime();
            if (samples != null)
            {
                if (i > 0)
                {
                    samples[(int) i - 1] = now - previous;
                }
            }
            else if (window.sampling(now))
            {
                counted++;
            }
            previous = now;
            postSend(me, i, size, flags, now + stallNanos);
            progress.tick(i + 1);
        }
        return result(samples, counted, window);
    }

    /** read_lat / atomic_lat: one signaled READ (of the peer's receive area) or FETCH_ADD(1), until it completes. */
    static Latency oneSidedLat(final RcEndpoint me, final boolean atomic, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final int size = o.size();
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) iterations] : null;
        final PeerInfo remote = me.remote;
        final long raddr = remote.addr();
        final int rkey = remote.rkey();
        final long wrBase = me.lastSendWrId + 1;   // wr_ids keep rising across the runs of a sweep
        long counted = 0;
        for (long i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            if (window != null && window.over(t0))
            {
                break;
            }
            final long deadline = t0 + stallNanos;
            final int flags = SendFlags.SIGNALED | SendFlags.RING;
            final long wrId = wrBase + i;
            long spins = 0;
            while (!(atomic
                ? me.sq.fetchAdd(wrId, me.sendArea, me.lkey, raddr, rkey, 1L, flags)
                : me.sq.rdmaRead(wrId, me.sendArea, me.lkey, size, raddr, rkey, flags)))
            {
                me.pollOnce();
                spins = checkStall(spins, deadline, "send queue full", i);
            }
            while (me.lastSendWrId != wrId)
            {
                if (me.pollOnce() == 0)
                {
                    spins = checkStall(spins, deadline, atomic ? "atomic completion" : "READ completion", i);
                }
            }
            final long now = System.nanoTime();
            if (samples != null)
            {
                samples[(int) i] = now - t0;
            }
            else if (window.sampling(now))
            {
                counted++;
            }
            progress.tick(i + 1);
        }
        return result(samples, counted, window);
    }

    private static Latency result(final long[] samples, final long counted, final RunWindow window)
    {
        return samples != null ? new Latency(samples, samples.length, 0) : new Latency(null, counted,
            window.sampleNanos());
    }

    // --------------------------------------------------------------------------------------------- bandwidth

    /** {@link #bandwidth(RcEndpoint, RcEndpoint, PerfOptions, int, Progress, long, BandwidthPeak)} without a peak. */
    static Bandwidth bandwidth(final RcEndpoint me, final RcEndpoint peer, final PerfOptions o, final int postList,
        final Progress progress, final long stallNanos)
    {
        return bandwidth(me, peer, o, postList, progress, stallNanos, null);
    }

    /**
     * *_bw initiator: keep up to tx-depth WQEs in flight, signal every cq-mod-th (and the last), ring once per
     * {@code postList} WQEs. An iteration run returns the nanoseconds from the first post to the last completion; a
     * duration run posts until the end and counts what completes while sampling (perftest leaves what is still in
     * flight at the end). In loopback send_bw the same thread also polls the receiver (which re-posts each receive
     * as it completes). {@code peak}: records each post and completion time for perftest's BW peak, or null.
     */
    static Bandwidth bandwidth(final RcEndpoint me, final RcEndpoint peer, final PerfOptions o, final int postList,
        final Progress progress, final long stallNanos, final BandwidthPeak peak)
    {
        final PerfTest test = o.test();
        final int size = o.size();
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final int window0 = o.txDepth();
        final int base = o.inline() ? SendFlags.INLINE : 0;
        final PeerInfo remote = me.remote;
        final long raddr = remote.addr();
        final int rkey = remote.rkey();
        final long peerBase = peer == null ? 0 : peer.recvDone;
        final long wrBase = me.lastSendWrId + 1;   // wr_ids keep rising across the runs of a sweep
        me.sq.signalEvery(o.cqMod());
        long posted = 0;
        long completed = 0;
        long counted = 0;
        long spins = 0;
        long deadline = System.nanoTime() + stallNanos;
        final long t0 = System.nanoTime();
        while (window == null ? completed < iterations : !window.over(System.nanoTime()))
        {
            while (posted < iterations && posted - completed < window0)
            {
                final boolean lastOne = posted == iterations - 1;
                final int flags = base | (lastOne ? SendFlags.SIGNALED : 0)
                    | ((posted + 1) % postList == 0 || lastOne ? SendFlags.RING : 0);
                if (peak != null)
                {
                    peak.posted(posted, System.nanoTime());
                }
                final long wrId = wrBase + posted;
                final boolean ok = switch (test)
                {
                    case WRITE_BW -> me.sq.rdmaWrite(wrId, me.sendArea, me.lkey, size, raddr, rkey, flags);
                    case READ_BW -> me.sq.rdmaRead(wrId, me.sendArea, me.lkey, size, raddr, rkey, flags);
                    case ATOMIC_BW -> me.sq.fetchAdd(wrId, me.sendArea, me.lkey, raddr, rkey, 1L, flags);
                    default -> me.sq.send(wrId, me.sendArea, me.lkey, size, flags);
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
                final long now = System.nanoTime();
                final long done = me.lastSendWrId + 1 - wrBase;
                if (window != null && window.sampling(now))
                {
                    counted += done - completed;
                }
                completed = done;
                if (peak != null)
                {
                    peak.completed(done - 1, now);
                }
                deadline = now + stallNanos;
                progress.tick(completed);
            }
            else
            {
                spins = checkStall(spins, deadline, "completions", completed);
            }
        }
        final long elapsed = System.nanoTime() - t0;
        if (window != null)
        {
            return new Bandwidth(counted, window.sampleNanos(), null);
        }
        if (peer != null && test == PerfTest.SEND_BW)
        {
            awaitRecv(peer, peerBase + iterations, System.nanoTime() + stallNanos, iterations, null);
        }
        return new Bandwidth(iterations, elapsed, peak);
    }

    /**
     * send_bw in the receiving process: count (and re-post) receives until {@code iterations} more arrived, or in a
     * duration run until the end (counting those that arrive while sampling). Returns the count.
     */
    static long sendBwResponder(final RcEndpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        final RunWindow window = RunWindow.of(o);
        final long base = me.recvDone;
        final long target = window == null ? base + o.iterations() : Long.MAX_VALUE;
        long seen = me.recvDone;
        long counted = 0;
        long deadline = System.nanoTime() + stallNanos;
        long spins = 0;
        while (me.recvDone < target)
        {
            if (me.pollOnce() != 0 && me.recvDone != seen)
            {
                final long now = System.nanoTime();
                if (window != null && window.sampling(now))
                {
                    counted += me.recvDone - seen;
                }
                seen = me.recvDone;
                deadline = now + stallNanos;
                progress.tick(seen - base);
            }
            else if (window != null)
            {
                if ((++spins & SPIN_CHECK_MASK) == 0 && window.over(System.nanoTime()))
                {
                    break;
                }
            }
            else
            {
                spins = checkStall(spins, deadline, "receives", me.recvDone - base);
            }
        }
        return window == null ? me.recvDone - base : counted;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static void postWrite(final RcEndpoint e, final long wrId, final int size, final int flags,
        final long deadline)
    {
        long spins = 0;
        while (!e.sq.rdmaWrite(wrId, e.sendArea, e.lkey, size, e.remote.addr(), e.remote.rkey(), flags))
        {
            e.pollOnce();
            spins = checkStall(spins, deadline, "send queue full", wrId);
        }
    }

    private static void postSend(final RcEndpoint e, final long wrId, final int size, final int flags,
        final long deadline)
    {
        long spins = 0;
        while (!e.sq.send(wrId, e.sendArea, e.lkey, size, flags))
        {
            e.pollOnce();
            spins = checkStall(spins, deadline, "send queue full", wrId);
        }
    }

    /** False when a duration run ended while waiting (perftest leaves its spin at END_STATE). */
    private static boolean awaitByte(final RcEndpoint e, final int offset, final byte marker, final long deadline,
        final long iteration, final RunWindow window)
    {
        long spins = 0;
        while (e.recvByte(offset) != marker)
        {
            Thread.onSpinWait();
            if (window != null)
            {
                if ((++spins & SPIN_CHECK_MASK) == 0 && window.over(System.nanoTime()))
                {
                    return false;
                }
            }
            else
            {
                spins = checkStall(spins, deadline, "the peer's RDMA WRITE", iteration);
            }
        }
        return true;
    }

    /** Waits until {@code count} receives completed in all; false when a duration run ended meanwhile. */
    private static boolean awaitRecv(final RcEndpoint e, final long count, final long deadline, final long iteration,
        final RunWindow window)
    {
        long spins = 0;
        while (e.recvDone < count)
        {
            if (e.pollOnce() == 0 && (spins = emptyPoll(spins, deadline, window, "the peer's SEND", iteration)) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Polls until the WQE {@code wrId} has completed: write_lat waits for each WRITE's completion before it spins on
     * its buffer, as perftest's run_iter_lat_write does (every WRITE signaled, {@code ibv_poll_cq} until it returns
     * one). False when a duration run ended meanwhile.
     */
    private static boolean awaitSend(final RcEndpoint e, final long wrId, final long deadline, final long iteration,
        final RunWindow window)
    {
        long spins = 0;
        while (e.lastSendWrId != wrId)
        {
            if (e.pollOnce() == 0
                && (spins = emptyPoll(spins, deadline, window, "the RDMA WRITE's completion", iteration)) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * After an empty poll in a wait: the new spin count, or -1 when a duration run's window ended (checked every
     * 4096 spins); an iteration run throws once {@code deadline} passed ({@link #checkStall}).
     */
    private static long emptyPoll(final long spins, final long deadline, final RunWindow window,
        final String waitingFor, final long iteration)
    {
        if (window == null)
        {
            return checkStall(spins, deadline, waitingFor, iteration);
        }
        final long next = spins + 1;
        return (next & SPIN_CHECK_MASK) == 0 && window.over(System.nanoTime()) ? -1 : next;
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
