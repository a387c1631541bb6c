// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf.report;

import java.util.Arrays;

/**
 * Summary of latency samples, in microseconds. Definitions (written down because perftest's differ in details):
 * <ul>
 *   <li>every sample counts: perftest additionally drops its two largest samples (LAT_MEASURE_TAIL in perftest
 *       v4.5 perftest_parameters.c); mlx5j keeps them, so t_max is the worst iteration really seen;</li>
 *   <li>{@code typical} is the median (mean of the two middle samples when the count is even);</li>
 *   <li>{@code p99}/{@code p999} are nearest-rank percentiles: the sample at sorted index ceil(p * n) - 1;</li>
 *   <li>{@code stdev} is the population standard deviation.</li>
 * </ul>
 * Samples are divided by {@code rttFactor} first: 2 for tests whose sample is a ping-pong round trip and which report
 * one-way latency (write_lat, send_lat), 1 for tests whose single operation is already a round trip (read_lat,
 * atomic_lat), as perftest does (rtt_factor in print_report_lat).
 */
public record LatencyStats(int count, double min, double max, double typical, double avg, double stdev, double p99,
    double p999)
{
    /** Summarises {@code samplesNanos[0..count)}; does not modify the array. */
    public static LatencyStats of(final long[] samplesNanos, final int count, final int rttFactor)
    {
        if (count <= 0 || count > samplesNanos.length)
        {
            throw new IllegalArgumentException("need 1.." + samplesNanos.length + " samples, got " + count);
        }
        if (rttFactor != 1 && rttFactor != 2)
        {
            throw new IllegalArgumentException("rttFactor is 1 or 2, got " + rttFactor);
        }
        final long[] sorted = Arrays.copyOf(samplesNanos, count);
        Arrays.sort(sorted);
        final double scale = 1e-3 / rttFactor;
        double sum = 0;
        for (final long s : sorted)
        {
            sum += s;
        }
        final double mean = sum / count;
        double squares = 0;
        for (final long s : sorted)
        {
            squares += (s - mean) * (s - mean);
        }
        final double median = (count & 1) == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2.0;
        return new LatencyStats(count, sorted[0] * scale, sorted[count - 1] * scale, median * scale, mean * scale,
            Math.sqrt(squares / count) * scale, sorted[rank(0.99, count)] * scale, sorted[rank(0.999, count)] * scale);
    }

    /** Nearest rank: the smallest sample with at least {@code p * n} samples at or below it. */
    static int rank(final double p, final int n)
    {
        final int index = (int) Math.ceil(p * n - 1e-9) - 1;
        return Math.max(0, Math.min(n - 1, index));
    }
}
