// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

/**
 * Latencies in nanoseconds in fixed log-linear buckets, as HdrHistogram lays them out with 2 significant bits of 5:
 * values below 64 have a bucket each; above, each power of two is split into 32 buckets, so a bucket is at most
 * 1/32 (3.1 %) of its value wide. Covers up to 2^40 ns (18 minutes); larger values land in the last bucket.
 * {@link #record} allocates nothing. Confinement: one thread.
 */
final class LatencyHistogram
{
    private static final int SUB_BITS = 5;
    private static final int SUB = 1 << SUB_BITS;
    private static final int MAX_EXP = 40;
    private static final int BUCKETS = (MAX_EXP - SUB_BITS + 1) * SUB + SUB;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long max;

    /** Counts one latency. */
    void record(final long nanos)
    {
        final long v = Math.max(0, nanos);
        counts[index(v)]++;
        total++;
        if (v > max)
        {
            max = v;
        }
    }

    static int index(final long v)
    {
        if (v < 2 * SUB)
        {
            return (int) v;
        }
        final int exp = 63 - Long.numberOfLeadingZeros(v);       // >= SUB_BITS + 1
        if (exp > MAX_EXP)
        {
            return BUCKETS - 1;
        }
        final int sub = (int) (v >>> (exp - SUB_BITS)) & (SUB - 1);
        return (exp - SUB_BITS + 1) * SUB + sub;
    }

    /** The highest value that falls in bucket {@code i}. */
    static long upper(final int i)
    {
        if (i < 2 * SUB)
        {
            return i;
        }
        final int exp = i / SUB + SUB_BITS - 1;
        final long sub = i % SUB;
        return ((SUB + sub + 1) << (exp - SUB_BITS)) - 1;
    }

    /** Latencies counted. */
    long count()
    {
        return total;
    }

    /** Largest latency counted. */
    long max()
    {
        return max;
    }

    /**
     * The nearest-rank percentile {@code p} (0 < p <= 1): the upper end of the bucket holding the ceil(p * n)-th
     * smallest latency, at most the largest one seen; 0 when empty.
     */
    long percentile(final double p)
    {
        if (total == 0)
        {
            return 0;
        }
        final long rank = Math.max(1, (long) Math.ceil(p * total - 1e-9));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            seen += counts[i];
            if (seen >= rank)
            {
                return Math.min(upper(i), max);
            }
        }
        return max;
    }

    /** Adds {@code other}'s counts to this one's. */
    void add(final LatencyHistogram other)
    {
        for (int i = 0; i < BUCKETS; i++)
        {
            counts[i] += other.counts[i];
        }
        total += other.total;
        max = Math.max(max, other.max);
    }
}
