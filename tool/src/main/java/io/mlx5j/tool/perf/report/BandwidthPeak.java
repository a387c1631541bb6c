// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf.report;

/**
 * perftest's "BW peak" (perftest 4.5 perftest_parameters.c print_report_bw): the time of each post and of each
 * polled completion is recorded; the peak is the message size over the smallest per-message time of any window
 * that starts at a post i and ends at a later completion j, (t_completed[j] - t_posted[i]) / (j - i + 1). perftest
 * stores its completion times at the indices of the signaled work requests; this class records the index each
 * completion covers, which is the same set of windows. Recording is two array stores per message and allocates
 * nothing; the arrays are made before the run.
 */
public final class BandwidthPeak
{
    private final long[] posted;
    private final long[] doneIndex;
    private final long[] doneAt;
    private int completions;

    /** Room for {@code iterations} posts and as many completions. */
    public BandwidthPeak(final long iterations)
    {
        if (iterations > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException("the peak needs one timestamp per message: at most 2^31 messages, got "
                + iterations + " (perftest -N / mlx5j -N skips it)");
        }
        posted = new long[(int) iterations];
        doneIndex = new long[(int) iterations];
        doneAt = new long[(int) iterations];
    }

    /** Message {@code i} is being posted now. */
    public void posted(final long i, final long nanos)
    {
        posted[(int) i] = nanos;
    }

    /** Every message up to and including {@code lastIndex} has completed, seen at {@code nanos}. */
    public void completed(final long lastIndex, final long nanos)
    {
        if (completions < doneAt.length)
        {
            doneIndex[completions] = lastIndex;
            doneAt[completions] = nanos;
            completions++;
        }
    }

    /** The smallest time per message of any post-to-completion window, in nanoseconds (0 if nothing completed). */
    public double bestNanosPerMessage()
    {
        double best = Double.MAX_VALUE;
        int first = 0;   // the first completion at or after post i
        final int posts = posted.length;
        for (int i = 0; i < posts; i++)
        {
            while (first < completions && doneIndex[first] < i)
            {
                first++;
            }
            for (int k = first; k < completions; k++)
            {
                final double t = (double) (doneAt[k] - posted[i]) / (doneIndex[k] - i + 1);
                if (t < best)
                {
                    best = t;
                }
            }
        }
        return best == Double.MAX_VALUE ? 0 : best;
    }

    /** The peak in the report's unit: MB/sec (2^20 bytes) or, {@code gbits}, Gb/sec (10^9 bits). */
    public double peak(final long size, final boolean gbits)
    {
        final double t = bestNanosPerMessage();
        if (t <= 0)
        {
            return 0;
        }
        return size / (t * 1e-9) / (gbits ? 125_000_000.0 : 1 << 20);
    }
}
