package io.mlx5j.tool.perf;

import io.mlx5j.direct.SendFlags;

import java.util.concurrent.TimeUnit;

/**
 * The measuring loops of {@code mlx5j perf raw_lat | raw_bw}, in perftest's roles (perftest v4.5-0.17
 * perftest_resources.c run_iter_lat_send, run_iter_bw, run_iter_bw_server): the client sends first; a raw_lat server
 * answers every frame; a raw_bw server counts frames. In loopback the server endpoint is driven by the same thread
 * between the client's steps.
 * <p>
 * No allocation in the loops; no exception except on failure: an error completion, a frame that is not the one the
 * peer must send ({@link RawEndpoint}), or a stall (nothing arrives or retires within the timeout; checked every
 * 4096 spins), which names the frame so a lost peer is never a silent hang. Work request ids are frame numbers.
 */
final class RawPerfLoops
{
    private static final int SPIN_CHECK_MASK = 4095;

    private RawPerfLoops()
    {
    }

    /**
     * raw_lat client: send, then wait for the server's frame. Sample = that round trip (the table reports half of
     * it, as perftest does). {@code peer}: the loopback server, else null.
     */
    static long[] latClient(final RawEndpoint me, final RawEndpoint peer, final Progress progress,
        final long stallNanos)
    {
        final PerfOptions o = me.o;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long n = o.iterations();
        final long[] samples = new long[(int) n];
        for (long i = 0; i < n; i++)
        {
            final long t0 = System.nanoTime();
            final long deadline = t0 + stallNanos;
            send(me, i, flags, n, deadline);
            if (peer != null)
            {
                awaitRecv(peer, i + 1, deadline, "the client's frame", i);
                send(peer, i, flags, n, deadline);
            }
            awaitRecv(me, i + 1, deadline, "the server's answer to frame", i);
            samples[(int) i] = System.nanoTime() - t0;
            me.pollSend();
            if (peer != null)
            {
                peer.pollSend();
            }
            progress.tick(i + 1);
        }
        drainSends(me, n, stallNanos);
        if (peer != null)
        {
            drainSends(peer, n, stallNanos);
        }
        return samples;
    }

    /**
     * raw_lat server in its own process: wait for frame i, answer it. Samples are the times between consecutive
     * answers (perftest's way on both sides), so there are iterations - 1 of them. The first frame is awaited for
     * the whole timeout: the client may start later.
     */
    static long[] latServer(final RawEndpoint me, final Progress progress, final long stallNanos)
    {
        final PerfOptions o = me.o;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long n = o.iterations();
        final long[] samples = new long[(int) Math.max(1, n - 1)];
        long previous = 0;
        for (long i = 0; i < n; i++)
        {
            awaitRecv(me, i + 1, System.nanoTime() + stallNanos, "the client's frame", i);
            final long now = System.nanoTime();
            if (i > 0)
            {
                samples[(int) i - 1] = now - previous;
            }
            previous = now;
            send(me, i, flags, n, now + stallNanos);
            me.pollSend();
            progress.tick(i + 1);
        }
        drainSends(me, n, stallNanos);
        return samples;
    }

    /**
     * raw_bw client: keep up to tx-depth frames in flight, signaled every cq-mod and the last; returns the nanoseconds
     * from the first post to the last send completion (perftest's tposted[0] .. tcompleted[last]). {@code peer}: the
     * loopback server, polled between posts (it must keep its receives posted or the NIC holds the frames), else
     * null.
     */
    static long bwClient(final RawEndpoint me, final RawEndpoint peer, final Progress progress, final long stallNanos)
    {
        final PerfOptions o = me.o;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long n = o.iterations();
        final int window = o.txDepth();
        long posted = 0;
        long start = 0;
        long stalledSince = 0;
        long retired = 0;
        long nextTick = 1024;
        int spins = 0;
        while (me.sendsRetired < n)
        {
            if (posted < n && posted - me.sendsRetired < window
                && me.send(posted, flags | (posted == n - 1 ? SendFlags.SIGNALED : 0)))
            {
                if (posted == 0)
                {
                    start = System.nanoTime();
                }
                posted++;
            }
            me.pollSend();
            if (peer != null)
            {
                // drain the loopback server's CQ: each frame read gives its buffer back at once. Reading one per
                // pass fell behind the sends (a signaled completion opens the window by cq-mod frames), the receive
                // queue ran dry, and a frame the NIC then holds is dropped after 200 ms (the emulator's pause-frame
                // limit) if this thread is descheduled that long: seen at load 80, frame 4999 of 5000 never came
                while (peer.pollRecv() != 0)
                {
                    // every frame is checked and reposted inside pollRecv
                }
            }
            if (me.sendsRetired != retired)
            {
                retired = me.sendsRetired;
                if (retired >= nextTick)
                {
                    progress.tick(nextTick);
                    nextTick += 1024;
                }
                spins = 0;
                stalledSince = 0;
            }
            else if ((++spins & SPIN_CHECK_MASK) == 0)
            {
                final long now = System.nanoTime();
                if (stalledSince == 0)
                {
                    stalledSince = now;
                }
                else if (now - stalledSince > stallNanos)
                {
                    throw new IllegalStateException("raw_bw: no send completion for " + seconds(stallNanos)
                        + " s; " + me.sendsRetired + " of " + n + " frames sent, " + posted + " posted");
                }
            }
        }
        final long nanos = System.nanoTime() - start;
        if (peer != null)
        {
            awaitRecv(peer, n, System.nanoTime() + stallNanos, "the client's frame", n - 1);
        }
        return Math.max(1, nanos);
    }

    /**
     * raw_bw server: count n frames; returns the nanoseconds from the first to the last (perftest's server measures
     * from its first receive). The first frame is awaited for the whole timeout.
     */
    static long bwServer(final RawEndpoint me, final Progress progress, final long stallNanos)
    {
        final long n = me.o.iterations();
        awaitRecv(me, 1, System.nanoTime() + stallNanos, "the client's frame", 0);
        final long start = System.nanoTime();
        long stalledSince = 0;
        int spins = 0;
        while (me.received < n)
        {
            if (me.pollRecv() != 0)
            {
                spins = 0;
                stalledSince = 0;
                if ((me.received & 1023) == 0)
                {
                    progress.tick(me.received);
                }
            }
            else if ((++spins & SPIN_CHECK_MASK) == 0)
            {
                final long now = System.nanoTime();
                if (stalledSince == 0)
                {
                    stalledSince = now;
                }
                else if (now - stalledSince > stallNanos)
                {
                    throw new IllegalStateException("raw_bw: " + me.received + " of " + n + " frames arrived, then "
                        + "none for " + seconds(stallNanos) + " s (the client stopped, or frames were lost)");
                }
            }
        }
        return Math.max(1, System.nanoTime() - start);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Posts frame i (the last one signaled), retiring sends while the ring is full. */
    static void send(final RawEndpoint e, final long i, final int flags, final long n, final long deadline)
    {
        final int f = flags | (i == n - 1 ? SendFlags.SIGNALED : 0);
        int spins = 0;
        while (!e.send(i, f))
        {
            e.pollSend();
            if ((++spins & SPIN_CHECK_MASK) == 0 && System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("send ring full for frame " + i + ": no send completion arrived");
            }
        }
    }

    /** Waits until {@code count} frames arrived; {@code what} and {@code frame} name the awaited one on failure. */
    private static void awaitRecv(final RawEndpoint e, final long count, final long deadline, final String what,
        final long frame)
    {
        int spins = 0;
        while (e.received < count)
        {
            if (e.pollRecv() == 0 && (++spins & SPIN_CHECK_MASK) == 0 && System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(what + " " + frame + " did not arrive within the timeout (" + e.received
                    + " frames received): the peer is not running, or its frames do not match this side's flow "
                    + "rule (check -B/-E/-J/-j/-K/-k on both sides)");
            }
        }
    }

    /** Waits until the last (signaled) send retired, so that every frame left the ring before teardown. */
    private static void drainSends(final RawEndpoint e, final long n, final long stallNanos)
    {
        final long deadline = System.nanoTime() + stallNanos;
        int spins = 0;
        while (e.sendsRetired < n)
        {
            if (e.pollSend() == 0 && (++spins & SPIN_CHECK_MASK) == 0 && System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("the last send did not complete (" + e.sendsRetired + " of " + n
                    + " retired)");
            }
        }
    }

    private static long seconds(final long nanos)
    {
        return TimeUnit.NANOSECONDS.toSeconds(nanos);
    }
}
