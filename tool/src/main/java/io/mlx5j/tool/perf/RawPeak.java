package io.mlx5j.tool.perf;

/**
 * perftest's "BW peak" of a bandwidth client (perftest v4.5-0.17 perftest_parameters.c print_report_bw with noPeak
 * off): the shortest time per message over every run of consecutive messages that starts at a post and ends at a
 * signaled completion, i.e. the minimum over posts i and signaled completions j >= i of
 * {@code (completed[j] - posted[i]) / (j - i + 1)}. The signaled completions are every cq-mod-th message and the last
 * (the messages perftest signals). perftest leaves the peak out (prints 0) with -N, on a SEND bw server, and for more
 * than 20000 iterations (where the search costs too much); {@link #MAX_ITERATIONS}.
 */
final class RawPeak
{
    /** perftest turns the peak off above this many iterations (force_dependecies). */
    static final long MAX_ITERATIONS = 20_000;

    private RawPeak()
    {
    }

    /**
     * The best nanoseconds per message.
     *
     * @param posted    post time of message i
     * @param completed completion time of message j, for the signaled j
     */
    static double bestNanosPerMessage(final long[] posted, final long[] completed, final int n, final int cqMod)
    {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < n; i++)
        {
            // the first signaled message at or after i: ROUND_UP(i + 1, cq_mod) - 1
            for (int j = ((i + cqMod) / cqMod) * cqMod - 1; j < n; j += cqMod)
            {
                best = Math.min(best, (double) (completed[j] - posted[i]) / (j - i + 1));
            }
            if (n % cqMod != 0)
            {
                best = Math.min(best, (double) (completed[n - 1] - posted[i]) / (n - i));
            }
        }
        return best;
    }

    /** The peak in the report's unit: MB/sec (2^20 bytes) or, with {@code gbits}, Gb/sec (10^9 bits). */
    static double peak(final long size, final double nanosPerMessage, final boolean gbits)
    {
        final double bytesPerSecond = size / (nanosPerMessage * 1e-9);
        return gbits ? bytesPerSecond / 125_000_000.0 : bytesPerSecond / (1 << 20);
    }
}
