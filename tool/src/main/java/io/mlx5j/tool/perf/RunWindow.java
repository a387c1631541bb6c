// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

/**
 * perftest's duration mode ({@code -D}, perftest 4.5 perftest_resources.c catch_alarm): the run starts in a warm-up
 * of {@code margin} seconds, then samples for {@code duration - 2 * margin} seconds, then cools down for
 * {@code margin} seconds and ends. Only what completes while sampling counts, and the report divides by the sampling
 * time. perftest moves between the states on SIGALRM; mlx5j reads the clock in its loops (once per iteration, which
 * the latency loops do anyway, and once per poll in the bandwidth loop).
 */
final class RunWindow
{
    private final long sampleStart;
    private final long sampleEnd;
    private final long end;

    private RunWindow(final long start, final PerfOptions o)
    {
        this.sampleStart = start + o.margin() * 1_000_000_000L;
        this.end = start + o.duration() * 1_000_000_000L;
        this.sampleEnd = end - o.margin() * 1_000_000_000L;
    }

    /** The window of a duration run starting now, or null for an iteration run. */
    static RunWindow of(final PerfOptions o)
    {
        return o.duration() > 0 ? new RunWindow(System.nanoTime(), o) : null;
    }

    /** END_STATE: the run stops. */
    boolean over(final long now)
    {
        return now - end >= 0;
    }

    /** SAMPLE_STATE: a completion now counts. */
    boolean sampling(final long now)
    {
        return now - sampleStart >= 0 && now - sampleEnd < 0;
    }

    /** The sampling time, what the counted iterations are divided by. */
    long sampleNanos()
    {
        return sampleEnd - sampleStart;
    }
}
