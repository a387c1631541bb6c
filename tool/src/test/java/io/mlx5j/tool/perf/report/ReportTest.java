// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf.report;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Latency/bandwidth arithmetic and the table layout, against values worked out by hand. */
class ReportTest
{
    private static final double EPS = 1e-9;

    @Test
    void oddCountStatistics()
    {
        final LatencyStats s = LatencyStats.of(new long[] {5000, 1000, 3000, 2000, 4000}, 5, 1);
        assertEquals(5, s.count());
        assertEquals(1.0, s.min(), EPS);
        assertEquals(5.0, s.max(), EPS);
        assertEquals(3.0, s.typical(), EPS);
        assertEquals(3.0, s.avg(), EPS);
        assertEquals(Math.sqrt(2.0), s.stdev(), EPS); // deviations -2,-1,0,1,2: variance 10/5
        assertEquals(5.0, s.p99(), EPS);              // ceil(4.95) = 5th of 5
        assertEquals(5.0, s.p999(), EPS);
    }

    @Test
    void roundTripsAreHalvedForPingPongTests()
    {
        // even count: the median is the mean of the middle two (2000 and 3000 ns -> 2.5 us, halved 1.25 us)
        final long[] samples = {4000, 1000, 3000, 2000, 99};
        final LatencyStats s = LatencyStats.of(samples, 4, 2);
        assertEquals(0.5, s.min(), EPS);
        assertEquals(2.0, s.max(), EPS);
        assertEquals(1.25, s.typical(), EPS);
        assertEquals(1.25, s.avg(), EPS);
        assertEquals(99, samples[4], "only the first count samples are used, none modified");
        assertEquals(4000, samples[0]);
    }

    @Test
    void nearestRankPercentilesOverAThousandSamples()
    {
        final long[] samples = new long[1000];
        for (int i = 0; i < samples.length; i++)
        {
            samples[i] = (1000 - i) * 1000L; // 1000 us down to 1 us
        }
        final LatencyStats s = LatencyStats.of(samples, samples.length, 1);
        assertEquals(990.0, s.p99(), EPS);   // 990 samples are <= 990 us
        assertEquals(999.0, s.p999(), EPS);  // 999 samples are <= 999 us
        assertEquals(500.5, s.typical(), EPS);
        assertEquals(0, LatencyStats.rank(0.99, 1));
        assertEquals(98, LatencyStats.rank(0.99, 99));
        assertEquals(99, LatencyStats.rank(0.99, 101)); // ceil(99.99) = 100th
        assertThrows(IllegalArgumentException.class, () -> LatencyStats.of(samples, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> LatencyStats.of(samples, 10, 3));
    }

    @Test
    void bandwidthInPerftestUnits()
    {
        // 5000 x 65536 bytes in 0.25 s: 312.5 MiB / 0.25 s = 1250 MB/sec (MB = 2^20), 20000 msg/s = 0.02 Mpps
        final BandwidthStats bw = new BandwidthStats(65536, 5000, 250_000_000L);
        assertEquals(1250.0, bw.mbPerSec(), 1e-6);
        assertEquals(0.02, bw.mpps(), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> new BandwidthStats(1, 1, 0));
    }

    @Test
    void latencyRowValuesSitUnderTheirTitles()
    {
        final String header = ResultTable.latencyHeader();
        final String row = ResultTable.latencyRow(2, 1000,
            LatencyStats.of(new long[] {1000, 2000, 3000, 4000, 5000}, 5, 2));
        // each column is max(title, 11) + 2 characters wide
        assertEquals(" #bytes       #iterations  t_min[usec]  t_max[usec]  t_typical[usec]  t_avg[usec]  "
            + "t_stdev[usec]  99% percentile[usec]  99.9% percentile[usec]", header);
        assertEquals(" 2            1000         0.50         2.50         1.50             1.50         "
            + "0.71           2.50                  2.50", row);
        assertColumnsAligned(ResultTable.LATENCY_COLUMNS, header, row);
    }

    @Test
    void bandwidthRowValuesSitUnderTheirTitles()
    {
        final String header = ResultTable.bandwidthHeader();
        final String row = ResultTable.bandwidthRow(new BandwidthStats(65536, 5000, 250_000_000L), 1312.5);
        assertEquals(" #bytes       #iterations  BW peak[MB/sec]  BW average[MB/sec]  MsgRate[Mpps]", header);
        assertEquals(" 65536        5000         1312.50          1250.00             0.020000", row);
        assertColumnsAligned(ResultTable.BANDWIDTH_COLUMNS, header, row);
    }

    private static void assertColumnsAligned(final String[] titles, final String header, final String row)
    {
        final String[] values = row.trim().split("\\s+");
        assertEquals(titles.length, values.length, row);
        int from = 0;
        for (int i = 0; i < titles.length; i++)
        {
            final int at = header.indexOf(titles[i], from);
            assertEquals(at, row.indexOf(values[i], at), "column " + titles[i] + " in\n" + header + "\n" + row);
            from = at + titles[i].length();
        }
    }
}
