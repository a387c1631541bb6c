// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.direct.SendFlags;
import io.mlx5j.tool.perf.report.BandwidthPeak;

/**
 * The measuring loops, one family for every transport: each takes the endpoint that initiates ({@code me}) and, in
 * loopback, the endpoint that answers ({@code peer}, driven by the same thread between the initiator's steps); in
 * two-process runs {@code peer} is null and the answering loop runs in the other process ({@link #sendLatResponder},
 * {@link #sendBwResponder}, {@link #writeLatResponder}). The send ping-pong, the stream and the receiving side of a
 * stream are written once against {@link Endpoint} and serve send_lat / raw_lat and the *_bw tests / raw_bw alike
 * (perftest v4.5 perftest_resources.c run_iter_lat_send, run_iter_bw, run_iter_bw_server); write_lat's buffer spin
 * and the one-sided READ / atomic latency are the RC part's own ({@link RcEndpoint}).
 * <p>
 * A duration run ({@code -D}) reads its {@link RunWindow} between iterations. No allocation and no exceptions inside
 * the loops except on failure: an error completion, a message that is not the one the peer must send (raw), or a
 * stall (nothing arrives within {@code stallNanos}; checked every 4096 spins), which names the iteration so a lost
 * peer is never a silent hang. Work request ids are message numbers, offset where a loop waits for its own
 * completions (so they keep rising across the runs of a sweep).
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
     * A bandwidth run: messages and the nanoseconds from the first post to the last completion (the receiving side:
     * from the first message to the last), or the messages completed while sampling and the sampling time (duration
     * runs); {@code peak} as recorded, or null.
     */
    record Bandwidth(long iterations, long nanos, BandwidthPeak peak)
    {
    }

    // ------------------------------------------------------------------------------------- send ping-pong

    /**
     * send_lat / raw_lat initiator: send, then poll until the peer's message has completed a receive here. Sample =
     * that round trip (reported halved). The last message is signaled, so that the caller can wait for every send.
     */
    static Latency sendLat(final Endpoint me, final Endpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        me.begin(o);
        if (peer != null)
        {
            peer.begin(o);
        }
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) iterations] : null;
        final long base = me.received;
        final long peerBase = peer == null ? 0 : peer.received;
        long counted = 0;
        for (long i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            if (window != null && window.over(t0))
            {
                break;
            }
            final long deadline = t0 + stallNanos;
            final int f = i == iterations - 1 ? flags | SendFlags.SIGNALED : flags;
            post(me, i, f, deadline);
            if (peer != null)
            {
                if (!awaitRecv(peer, peerBase + i + 1, deadline, i, window))
                {
                    break;
                }
                post(peer, i, f, deadline);
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
            me.retireSends();
            if (peer != null)
            {
                peer.retireSends();
            }
            progress.tick(i + 1);
        }
        return result(samples, counted, window);
    }

    /**
     * send_lat / raw_lat in the answering process: receive, send back. Samples are the times between consecutive
     * sends (perftest's way on both sides), so there are iterations - 1 of them. The first message is awaited for
     * the whole stall timeout (the initiator may start later), and a duration run's clock starts when it arrives.
     */
    static Latency sendLatResponder(final Endpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        me.begin(o);
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long base = me.received;
        awaitRecv(me, base + 1, System.nanoTime() + stallNanos, 0, null);
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) Math.max(1, iterations - 1)] : null;
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
            else if (window.over(now))
            {
                break;
            }
            else if (window.sampling(now))
            {
                counted++;
            }
            previous = now;
            post(me, i, i == iterations - 1 ? flags | SendFlags.SIGNALED : flags, now + stallNanos);
            me.retireSends();
            progress.tick(i + 1);
        }
        return result(samples, counted, window);
    }

    // ------------------------------------------------------------------------------------------ stream

    /** {@link #bandwidth(Endpoint, Endpoint, PerfOptions, Progress, long, BandwidthPeak)} without a peak. */
    static Bandwidth bandwidth(final Endpoint me, final Endpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        return bandwidth(me, peer, o, progress, stallNanos, null);
    }

    /**
     * *_bw / raw_bw initiator: keep up to tx-depth messages in flight, signal every cq-mod-th (and the last), ring
     * each. An iteration run returns the nanoseconds from the first post to the last completion; a duration run posts
     * until the end and counts what completes while sampling (perftest leaves what is still in flight at the end). In
     * loopback the same thread also polls the receiver (which posts each receive again as it completes). {@code
     * peak}: records each post and completion time for perftest's BW peak, or null.
     */
    static Bandwidth bandwidth(final Endpoint me, final Endpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos, final BandwidthPeak peak)
    {
        me.begin(o);
        if (peer != null)
        {
            peer.begin(o);
        }
        final RunWindow window = RunWindow.of(o);
        // perftest -q: -n messages and -t in flight per QP, the last one of each QP signaled (run_iter_bw)
        final int qps = me.qpCount();
        final long iterations = window == null ? o.iterations() * qps : Long.MAX_VALUE;
        final int depth = o.txDepth() * qps;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long peerBase = peer == null ? 0 : peer.received;
        final long wrBase = me.sendsRetired;   // wr_ids keep rising across the runs of a sweep
        long posted = 0;
        long completed = 0;
        long counted = 0;
        long spins = 0;
        long deadline = System.nanoTime() + stallNanos;
        final long t0 = System.nanoTime();
        while (window == null ? completed < iterations : !window.over(System.nanoTime()))
        {
            while (posted < iterations && posted - completed < depth)
            {
                final int f = posted >= iterations - qps ? flags | SendFlags.SIGNALED : flags;
                if (peak != null)
                {
                    peak.posted(posted, System.nanoTime());
                }
                if (!me.post(wrBase + posted, f))
                {
                    break;
                }
                posted++;
            }
            final int polled = me.pollSend();
            if (peer != null)
            {
                // drain the loopback receiver's CQ: each message read gives its buffer back at once. Reading one per
                // pass fell behind the sends (a signaled completion opens the window by cq-mod messages), the receive
                // queue ran dry, and a raw frame the NIC then holds is dropped after 200 ms (the emulator's
                // pause-frame limit) if this thread is descheduled that long: seen at load 80, raw_bw frame 4999 of
                // 5000 never came
                while (peer.pollRecv() != 0)
                {
                    // every message is counted (and a frame checked) and its receive posted again inside pollRecv
                }
            }
            if (polled != 0)
            {
                final long now = System.nanoTime();
                final long done = me.sendsRetired - wrBase;
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
                spins = checkStall(spins, deadline, me, "send completion", completed);
            }
        }
        final long elapsed = System.nanoTime() - t0;
        if (window != null)
        {
            return new Bandwidth(counted, window.sampleNanos(), null);
        }
        if (peer != null && peer.receives())
        {
            awaitRecv(peer, peerBase + iterations, System.nanoTime() + stallNanos, iterations, null);
        }
        return new Bandwidth(iterations, Math.max(1, elapsed), peak);
    }

    /**
     * send_bw / raw_bw in the receiving process: count receives (each posted again at once) until {@code iterations}
     * more arrived, or in a duration run until the end, counting those that arrive while sampling. The first
     * message is awaited for the whole stall timeout (the sender may start later); the time, and a duration run's
     * clock, start when it arrives (perftest's server measures from its first receive).
     */
    static Bandwidth sendBwResponder(final Endpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        me.begin(o);
        final long base = me.received;
        awaitRecv(me, base + 1, System.nanoTime() + stallNanos, 0, null);
        final long first = System.nanoTime();
        final RunWindow window = RunWindow.of(o);
        final long target = window == null ? base + o.iterations() * me.qpCount() : Long.MAX_VALUE;
        long seen = me.received;
        long counted = window != null && window.sampling(first) ? seen - base : 0;
        long deadline = first + stallNanos;
        long spins = 0;
        while (me.received < target)
        {
            if (me.pollRecv() != 0)
            {
                final long now = System.nanoTime();
                if (window != null)
                {
                    if (window.over(now))
                    {
                        break;
                    }
                    if (window.sampling(now))
                    {
                        counted += me.received - seen;
                    }
                }
                seen = me.received;
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
                spins = checkStall(spins, deadline, me, null, me.received - base);
            }
        }
        return window != null ? new Bandwidth(counted, window.sampleNanos(), null)
            : new Bandwidth(me.received - base, Math.max(1, System.nanoTime() - first), null);
    }

    // ------------------------------------------------------------------------- the RC part's own loops

    /**
     * write_lat initiator: write the message with marker {@code (byte) (i + 1)} in its last byte, wait for that WRITE's
     * completion, then spin until the peer's write puts the same marker into the last byte of our receive area
     * (perftest's order in run_iter_lat_write). Sample = that round trip.
     */
    static Latency writeLat(final RcEndpoint me, final RcEndpoint peer, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        me.begin(o);
        if (peer != null)
        {
            peer.begin(o);
        }
        final int size = o.size();
        final int last = size - 1;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.SIGNALED | SendFlags.RING;
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) iterations] : null;
        final long wrBase = me.sendsRetired;   // wr_ids keep rising across the runs of a sweep
        final long peerWrBase = peer == null ? 0 : peer.sendsRetired;
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
        me.begin(o);
        final int size = o.size();
        final int last = size - 1;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.SIGNALED | SendFlags.RING;
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) Math.max(1, iterations - 1)] : null;
        final long wrBase = me.sendsRetired;
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

    /** read_lat / atomic_lat: one signaled READ (of the peer's receive area) or FETCH_ADD(1), until it completes. */
    static Latency oneSidedLat(final RcEndpoint me, final PerfOptions o, final Progress progress,
        final long stallNanos)
    {
        me.begin(o);
        final boolean atomic = o.test().isAtomic();
        final RunWindow window = RunWindow.of(o);
        final long iterations = window == null ? o.iterations() : Long.MAX_VALUE;
        final long[] samples = window == null ? new long[(int) iterations] : null;
        final long wrBase = me.sendsRetired;   // wr_ids keep rising across the runs of a sweep
        long counted = 0;
        for (long i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            if (window != null && window.over(t0))
            {
                break;
            }
            final long deadline = t0 + stallNanos;
            final long wrId = wrBase + i;
            long spins = 0;
            while (!me.post(wrId, SendFlags.SIGNALED | SendFlags.RING))
            {
                me.pollOnce();
                spins = checkStall(spins, deadline, me, "send completion (send queue full)", i);
            }
            while (me.sendsRetired != wrId + 1)
            {
                if (me.pollOnce() == 0)
                {
                    spins = checkStall(spins, deadline, me, atomic ? "atomic completion" : "READ completion", i);
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

    // ------------------------------------------------------------------------------------------------ helpers

    /** Posts message {@code wrId}, retiring sends while the ring is full. */
    private static void post(final Endpoint e, final long wrId, final int flags, final long deadline)
    {
        long spins = 0;
        while (!e.post(wrId, flags))
        {
            e.pollSend();
            spins = checkStall(spins, deadline, e, "send completion (send queue full)", wrId);
        }
    }

    private static void postWrite(final RcEndpoint e, final long wrId, final int size, final int flags,
        final long deadline)
    {
        long spins = 0;
        while (!e.write(wrId, size, flags))
        {
            e.pollOnce();
            spins = checkStall(spins, deadline, e, "send completion (send queue full)", wrId);
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
                spins = checkStall(spins, deadline, e, "RDMA WRITE from the peer", iteration);
            }
        }
        return true;
    }

    /** Waits until {@code count} receives completed in all; false when a duration run ended meanwhile. */
    private static boolean awaitRecv(final Endpoint e, final long count, final long deadline, final long iteration,
        final RunWindow window)
    {
        long spins = 0;
        while (e.received < count)
        {
            if (e.pollRecv() == 0 && (spins = emptyPoll(spins, deadline, window, e, null, iteration)) < 0)
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
        while (e.sendsRetired != wrId + 1)
        {
            if (e.pollOnce() == 0
                && (spins = emptyPoll(spins, deadline, window, e, "RDMA WRITE completion", iteration)) < 0)
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
    private static long emptyPoll(final long spins, final long deadline, final RunWindow window, final Endpoint e,
        final String waitingFor, final long iteration)
    {
        if (window == null)
        {
            return checkStall(spins, deadline, e, waitingFor, iteration);
        }
        final long next = spins + 1;
        return (next & SPIN_CHECK_MASK) == 0 && window.over(System.nanoTime()) ? -1 : next;
    }

    /**
     * Counts a spin; once {@code deadline} passed (checked every 4096 spins) throws, naming what did not come: {@code
     * waitingFor} (a constant: nothing is built per spin), or when null the peer's next message.
     */
    private static long checkStall(final long spins, final long deadline, final Endpoint e, final String waitingFor,
        final long iteration)
    {
        if ((spins & SPIN_CHECK_MASK) == SPIN_CHECK_MASK && System.nanoTime() - deadline > 0)
        {
            throw new IllegalStateException("stalled at iteration " + iteration + ": no "
                + (waitingFor != null ? waitingFor : e.messageName() + " from the peer") + " within the stall timeout ("
                + e.received + " received, " + e.sendsRetired + " sends completed; " + e.stallHint() + ")");
        }
        return spins + 1;
    }
}
