// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fixed buckets: contiguous, at most 1/32 wide, and the nearest-rank percentiles they give. */
class LatencyHistogramTest
{
    @Test
    void bucketsAreContiguousAndNarrow()
    {
        long lo = 0;
        for (int i = 0; LatencyHistogram.upper(i) < (1L << 40); i++)
        {
            final long hi = LatencyHistogram.upper(i);
            assertEquals(i, LatencyHistogram.index(lo), "low end of bucket " + i);
            assertEquals(i, LatencyHistogram.index(hi), "high end of bucket " + i);
            assertTrue(hi - lo + 1 <= Math.max(1, lo / 32), "bucket " + i + " [" + lo + ", " + hi + "]");
            lo = hi + 1;
        }
    }

    @Test
    void percentilesOfOneToTenThousandMicroseconds()
    {
        final LatencyHistogram h = new LatencyHistogram();
        for (long us = 10_000; us >= 1; us--)
        {
            h.record(us * 1000);
        }
        assertEquals(10_000, h.count());
        assertEquals(10_000_000, h.max());
        for (final double p : new double[] {0.5, 0.99, 0.999})
        {
            final double exact = Math.ceil(p * 10_000) * 1000;
            final long got = h.percentile(p);
            assertTrue(got >= exact && got <= exact * 33 / 32, p + ": " + got + " for " + exact);
        }
        assertEquals(10_000_000, h.percentile(1.0));
        assertEquals(0, new LatencyHistogram().percentile(0.5));
    }
}
