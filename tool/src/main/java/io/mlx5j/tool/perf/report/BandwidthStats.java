// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf.report;

/**
 * Throughput of a bandwidth run: {@code iterations} messages of {@code size} bytes completed in {@code nanos}.
 * MB is 2^20 bytes, as in perftest's default report (format_factor 0x100000 in perftest v4.5 perftest_parameters.c);
 * Mpps is 10^6 messages per second.
 */
public record BandwidthStats(long size, long iterations, long nanos)
{
    public BandwidthStats
    {
        if (nanos <= 0)
        {
            throw new IllegalArgumentException("a run takes positive time, got " + nanos + " ns");
        }
    }

    public double mbPerSec()
    {
        return (double) size * iterations / (1 << 20) / (nanos * 1e-9);
    }

    /** Gb/sec with Gb = 10^9 bits (perftest's --report_gbits: format_factor 125000000 bytes). */
    public double gbitPerSec()
    {
        return (double) size * iterations / 125_000_000.0 / (nanos * 1e-9);
    }

    public double mpps()
    {
        return iterations / (nanos * 1e-9) / 1e6;
    }
}
