package io.mlx5j.direct.tool;

import java.util.Locale;

/**
 * perftest's result tables (perftest v4.5 perftest_parameters.h RESULT_FMT_LAT and RESULT_FMT, without its BW peak
 * column): the same column titles, each value left-aligned under the start of its title.
 */
public final class ResultTable
{
    /** The dashed rule perftest prints around its tables (RESULT_LINE). */
    public static final String LINE =
        "---------------------------------------------------------------------------------------";

    static final String[] LATENCY_COLUMNS = {"#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
        "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]"};
    static final String[] BANDWIDTH_COLUMNS = {"#bytes", "#iterations", "BW average[MB/sec]", "MsgRate[Mpps]"};
    static final String[] BANDWIDTH_COLUMNS_GBITS = {"#bytes", "#iterations", "BW average[Gb/sec]", "MsgRate[Mpps]"};

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

    public static String bandwidthHeader()
    {
        return header(BANDWIDTH_COLUMNS);
    }

    /** {@code gbits}: perftest's --report_gbits columns (RESULT_FMT_G), values in Gb/sec. */
    public static String bandwidthHeader(final boolean gbits)
    {
        return header(gbits ? BANDWIDTH_COLUMNS_GBITS : BANDWIDTH_COLUMNS);
    }

    public static String bandwidthRow(final BandwidthStats s)
    {
        return bandwidthRow(s.size(), s.iterations(), s.mbPerSec(), s.mpps());
    }

    public static String bandwidthRow(final BandwidthStats s, final boolean gbits)
    {
        return bandwidthRow(s.size(), s.iterations(), gbits ? s.gbitPerSec() : s.mbPerSec(), s.mpps());
    }

    /** A row from a peer's report (perftest's server prints its client's numbers this way). */
    public static String bandwidthRow(final long size, final long iterations, final double bw, final double mpps)
    {
        return row(BANDWIDTH_COLUMNS, Long.toString(size), Long.toString(iterations), f2(bw),
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
