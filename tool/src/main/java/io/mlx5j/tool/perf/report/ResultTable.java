// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf.report;

import java.util.Locale;

/**
 * perftest's result tables (perftest v4.5 perftest_parameters.h RESULT_FMT_LAT, RESULT_FMT / RESULT_FMT_G and
 * RESULT_FMT_LAT_DUR): the same column titles in the same order, each value left-aligned under the start of its
 * title, with perftest's precision (2 decimals, 6 for the message rate).
 */
public final class ResultTable
{
    /** The dashed rule perftest prints around its tables (RESULT_LINE). */
    public static final String LINE =
        "---------------------------------------------------------------------------------------";

    static final String[] LATENCY_COLUMNS = {"#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
        "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]"};
    static final String[] BANDWIDTH_COLUMNS = {"#bytes", "#iterations", "BW peak[MB/sec]", "BW average[MB/sec]",
        "MsgRate[Mpps]"};
    static final String[] BANDWIDTH_COLUMNS_GBITS = {"#bytes", "#iterations", "BW peak[Gb/sec]", "BW average[Gb/sec]",
        "MsgRate[Mpps]"};

    static final String[] LATENCY_DURATION_COLUMNS = {"#bytes", "#iterations", "t_avg[usec]", "tps average"};

    /** Room for a value under each title: at least 11 characters (a 1 GiB size, a 10^10 iteration count) + 2. */
    private static final int MIN_WIDTH = 11;
    private static final int GAP = 2;

    private ResultTable()
    {
    }

    public static String latencyHeader()
    {
        return header(LATENCY_COLUMNS);
    }

    public static String latencyRow(final long size, final long iterations, final LatencyStats s)
    {
        return row(LATENCY_COLUMNS, Long.toString(size), Long.toString(iterations), f2(s.min()), f2(s.max()),
            f2(s.typical()), f2(s.avg()), f2(s.stdev()), f2(s.p99()), f2(s.p999()));
    }

    /** perftest's RESULT_FMT_LAT_DUR (latency tests with -D). */
    public static String latencyDurationHeader()
    {
        return header(LATENCY_DURATION_COLUMNS);
    }

    public static String latencyDurationRow(final long size, final long iterations, final double usec,
        final double tps)
    {
        return row(LATENCY_DURATION_COLUMNS, Long.toString(size), Long.toString(iterations), f2(usec), f2(tps));
    }

    public static String bandwidthHeader()
    {
        return header(BANDWIDTH_COLUMNS);
    }

    /** {@code gbits}: perftest's --report_gbits columns (RESULT_FMT_G), values in Gb/sec. */
    public static String bandwidthHeader(final boolean gbits)
    {
        return header(gbits ? BANDWIDTH_COLUMNS_GBITS : BANDWIDTH_COLUMNS);
    }

    /** {@code peak}: in MB/sec (0 when not measured, as perftest prints with -N). */
    public static String bandwidthRow(final BandwidthStats s, final double peak)
    {
        return bandwidthRow(s.size(), s.iterations(), peak, s.mbPerSec(), s.mpps());
    }

    public static String bandwidthRow(final BandwidthStats s, final double peak, final boolean gbits)
    {
        return bandwidthRow(s.size(), s.iterations(), peak, gbits ? s.gbitPerSec() : s.mbPerSec(), s.mpps());
    }

    /** A row of given numbers (perftest's server prints its client's report this way). */
    public static String bandwidthRow(final long size, final long iterations, final double peak, final double bw,
        final double mpps)
    {
        return row(BANDWIDTH_COLUMNS, Long.toString(size), Long.toString(iterations), f2(peak), f2(bw),
            String.format(Locale.ROOT, "%.6f", mpps));
    }

    private static String header(final String[] columns)
    {
        return row(columns, columns);
    }

    private static String row(final String[] columns, final String... values)
    {
        final StringBuilder sb = new StringBuilder(" ");
        for (int i = 0; i < columns.length; i++)
        {
            final String v = values[i];
            sb.append(v);
            if (i < columns.length - 1)
            {
                final int width = Math.max(columns[i].length(), MIN_WIDTH) + GAP;
                sb.append(" ".repeat(Math.max(1, width - v.length())));
            }
        }
        return sb.toString();
    }

    private static String f2(final double v)
    {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
