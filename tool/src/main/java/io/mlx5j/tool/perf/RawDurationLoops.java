package io.mlx5j.tool.perf;

import io.mlx5j.direct.SendFlags;

/**
 * {@code -D SECONDS}: the raw tests run for a time instead of a count, as perftest's duration mode does (perftest
 * v4.5-0.17 perftest_resources.c catch_alarm and the DURATION branches of run_iter_lat_send, run_iter_bw,
 * run_iter_bw_server; margin = duration / 4 from force_dependecies): a warm-up of one margin, a sample window of
 * duration - 2 * margin in which completed iterations are counted, then one margin more before the side stops. The
 * client starts its clock when it starts; a server at its first frame. Only the sample window is reported (perftest
 * keeps no per-iteration times in this mode, and prints no BW peak).
 * <p>
 * The clock is read between iterations (no signals); no allocation inside the loops.
 */
final class RawDurationLoops
{
    /** Iterations counted in the sample window and the window's measured length. */
    record Result(long count, long nanos)
    {
    }

    private RawDurationLoops()
    {
    }

    /**
     * raw_lat for a time: the client sends, the server answers (in loopback {@code peer} is the server, driven by
     * this thread). An iteration is a frame received by {@code me} in the sample window.
     */
    static Result lat(final RawEndpoint me, final RawEndpoint peer, final long stallNanos)
    {
        final PerfOptions o = me.o;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final long first = me.server ? firstFrame(me, stallNanos) : System.nanoTime();
        final Window w = new Window(first, o.duration());
        for (long i = 0; ; i++)
        {
            final long now = System.nanoTime();
            if (w.at(now))
            {
                break;
            }
            if (me.server)
            {
                if (i > 0 && !awaitUntil(me, i + 1, now + stallNanos, w.end, "the client's frame", i))
                {
                    break;
                }
                w.count(System.nanoTime(), 1);
                RawPerfLoops.send(me, i, flags, Long.MAX_VALUE, now + stallNanos);
            }
            else
            {
                RawPerfLoops.send(me, i, flags, Long.MAX_VALUE, now + stallNanos);
                if (peer != null)
                {
                    if (!awaitUntil(peer, i + 1, now + stallNanos, w.end, "the client's frame", i))
                    {
                        break;
                    }
                    RawPerfLoops.send(peer, i, flags, Long.MAX_VALUE, now + stallNanos);
                    peer.pollSend();
                }
                if (!awaitUntil(me, i + 1, now + stallNanos, w.end, "the server's answer to frame", i))
                {
                    break;
                }
                w.count(System.nanoTime(), 1);
            }
            me.pollSend();
        }
        return w.result();
    }

    /**
     * raw_bw client for a time: frames in flight up to tx-depth; an iteration is a frame whose send completed in the
     * sample window. At the end one signaled frame retires the unsignaled tail before teardown.
     */
    static Result bwClient(final RawEndpoint me, final RawEndpoint peer, final long stallNanos)
    {
        final PerfOptions o = me.o;
        final int flags = (o.inline() ? SendFlags.INLINE : 0) | SendFlags.RING;
        final Window w = new Window(System.nanoTime(), o.duration());
        long posted = 0;
        long retired = 0;
        while (true)
        {
            final long now = System.nanoTime();
            if (w.at(now))
            {
                break;
            }
            if (posted - me.sendsRetired < o.txDepth() && me.send(posted, flags))
            {
                posted++;
            }
            me.pollSend();
            if (me.sendsRetired != retired)
            {
                w.count(now, me.sendsRetired - retired);
                retired = me.sendsRetired;
            }
            if (peer != null)
            {
                while (peer.pollRecv() != 0)
                {
                    // drain: the loopback server's receive queue must not run dry (RawPerfLoops.bwClient)
                }
            }
        }
        final long deadline = System.nanoTime() + stallNanos;
        RawPerfLoops.send(me, posted, flags | SendFlags.SIGNALED, Long.MAX_VALUE, deadline);
        posted++;
        while (me.sendsRetired < posted)
        {
            me.pollSend();
            if (peer != null)
            {
                peer.pollRecv();
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("raw_bw -D: the last send did not complete");
            }
        }
        return w.result();
    }

    /** raw_bw server for a time from its first frame: an iteration is a frame received in the sample window. */
    static Result bwServer(final RawEndpoint me, final long stallNanos)
    {
        final Window w = new Window(firstFrame(me, stallNanos), me.o.duration());
        w.count(w.start, 1);
        while (true)
        {
            final long now = System.nanoTime();
            if (w.at(now))
            {
                break;
            }
            if (me.pollRecv() != 0)
            {
                w.count(now, 1);
            }
        }
        return w.result();
    }

    /** Waits for the first frame (the client may start later): returns when it arrived. */
    private static long firstFrame(final RawEndpoint me, final long stallNanos)
    {
        if (!awaitUntil(me, 1, System.nanoTime() + stallNanos, Long.MAX_VALUE, "the client's frame", 0))
        {
            throw new AssertionError("unreachable");
        }
        return System.nanoTime();
    }

    /**
     * Waits for {@code count} frames: true when they arrived, false when {@code end} passed first (the run is over);
     * fails at {@code deadline} (a stall).
     */
    private static boolean awaitUntil(final RawEndpoint e, final long count, final long deadline, final long end,
        final String what, final long frame)
    {
        int spins = 0;
        while (e.received < count)
        {
            if (e.pollRecv() == 0 && (++spins & 1023) == 0)
            {
                final long now = System.nanoTime();
                if (now - end >= 0)
                {
                    return false;
                }
                if (now - deadline > 0)
                {
                    throw new IllegalStateException(what + " " + frame + " did not arrive within the timeout ("
                        + e.received + " frames received): the peer is not running, or its frames do not match this "
                        + "side's flow rule (check -B/-E/-J/-j/-K/-k on both sides)");
                }
            }
        }
        return true;
    }

    /**
     * The phases of a duration run and what was counted in its sample window. The window's length is the nominal
     * one, as perftest's alarms measure it (tposted[0] at the alarm that opens it, tcompleted[0] at the one that closes
     * it); an iteration counts when it completes inside it.
     */
    private static final class Window
    {
        final long start;
        final long sampleStart;
        final long sampleEnd;
        final long end;
        long count;

        Window(final long start, final int seconds)
        {
            final long margin = (seconds / 4) * 1_000_000_000L;
            this.start = start;
            this.sampleStart = start + margin;
            this.sampleEnd = start + seconds * 1_000_000_000L - margin;
            this.end = start + seconds * 1_000_000_000L;
        }

        /** True when the run is over at {@code now}. */
        boolean at(final long now)
        {
            return now - end >= 0;
        }

        /** {@code n} iterations completed at {@code now}: counted inside the sample window. */
        void count(final long now, final long n)
        {
            if (now - sampleStart >= 0 && now - sampleEnd < 0)
            {
                count += n;
            }
        }

        Result result()
        {
            if (count == 0)
            {
                throw new IllegalStateException("no iteration completed in the sample window");
            }
            return new Result(count, sampleEnd - sampleStart);
        }
    }
}
