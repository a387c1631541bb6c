// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf.report;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** perftest's BW peak, worked by hand: the best post-to-completion window per message. */
class BandwidthPeakTest
{
    @Test
    void bestWindowWins()
    {
        // 4 messages, signalled every 2nd (cq_mod 2): completions cover index 1 and 3
        final BandwidthPeak p = new BandwidthPeak(4);
        p.posted(0, 0);
        p.posted(1, 10);
        p.posted(2, 20);
        p.posted(3, 25);
        p.completed(1, 100);    // windows: (0..1) 100/2 = 50, (1..1) 90/1
        p.completed(3, 125);    // (0..3) 125/4 = 31.25, (1..3) 115/3, (2..3) 105/2, (3..3) 100
        assertEquals(31.25, p.bestNanosPerMessage(), 1e-9);
        // 1 MiB messages at 31.25 ns each: 2^20 B / 31.25e-9 s / 2^20 = 3.2e7 MB/s
        assertEquals(3.2e7, p.peak(1 << 20, false), 1e-3);
        // Gb/s: 8 * 2^20 bits / 31.25 ns
        assertEquals(8.0 * (1 << 20) / 31.25, p.peak(1 << 20, true), 1e-6);
    }

    @Test
    void nothingCompletedIsZero()
    {
        assertEquals(0.0, new BandwidthPeak(3).peak(64, false));
    }
}
