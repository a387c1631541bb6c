// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;

import java.time.Duration;

/**
 * The options of {@code mlx5j blocks serve} and {@code mlx5j blocks bench}; see {@link #USAGE}.
 *
 * @param serve       true for {@code serve}, false for {@code bench}
 * @param host        bench: the server's address; serve: the address to listen on
 * @param port        rdma_cm port
 * @param device      RDMA device name, or null for the one rdma_cm picks (serve: the first)
 * @param size        serve: region size in bytes
 * @param file        serve: the file to map as the region, or null for an anonymous buffer
 * @param zero        serve: zero the file first (an anonymous buffer is always zeroed)
 * @param clients     serve: exit once this many connections have come and gone (0: serve until killed)
 * @param connections bench: RC connections
 * @param queueDepth  bench: I/Os in flight per connection
 * @param blockSize   bench: bytes per block
 * @param readPercent bench: percentage of READs among the I/Os
 * @param duration    bench: how long to run I/Os
 * @param verifyAll   bench: the final read-back reads every block of the region, not only those written
 * @param progress    bench: a progress line on stderr once per second
 * @param timeout     connection set-up timeout
 */
record BlocksOptions(boolean serve, String host, int port, String device, long size, String file, boolean zero,
    int clients, int connections, int queueDepth, int blockSize, int readPercent, Duration duration,
    boolean verifyAll, boolean progress, Duration timeout)
{
    static final int DEFAULT_PORT = 18_725;

    static final String USAGE = String.join("\n",
        "usage: mlx5j blocks serve [options]          export a registered region over rdma_cm",
        "       mlx5j blocks bench [options] HOST     read and write checksummed blocks in it by RDMA READ/WRITE",
        "common options:",
        "  -p, --port N            rdma_cm port (default " + DEFAULT_PORT + ")",
        "  -d, --ib-dev NAME       RDMA device (default: the one rdma_cm resolves; serve: the first)",
        "  --timeout SECONDS       connection set-up timeout (default 10)",
        "serve options:",
        "  -a, --address ADDR      address to listen on (default 0.0.0.0)",
        "  -s, --size BYTES        region size, k/m/g suffixes (default 64m)",
        "  -f, --file PATH         map this file as the region (created or extended to --size); default: an",
        "                          anonymous zeroed buffer",
        "  --zero                  with --file: zero it first (then a never-written block may read as zeros)",
        "  --clients N             exit after N connections have come and gone (default 0: until killed)",
        "bench options:",
        "  -c, --connections N     RC connections (default 1, at most 4096)",
        "  -q, --queue-depth N     I/Os in flight per connection (default 4)",
        "  -b, --block-size BYTES  block size, k suffix (default 4k)",
        "  -r, --read-percent N    READs among the I/Os, 0..100 (default 50)",
        "  -D, --duration SECONDS  how long to run (default 5; fractions allowed)",
        "  --verify-all            the final read-back reads every block of the region (default: those written)",
        "  --no-progress           no progress line on stderr",
        "Every block carries its number, the run's epoch, its generation and a CRC32C; every READ is checked, and",
        "after the run every written block is read back. Exit status 1 if any block failed verification.");

    static BlocksOptions parse(final String[] argv)
    {
        if (argv.length == 0 || !("serve".equals(argv[0]) || "bench".equals(argv[0])))
        {
            throw new UsageException(argv.length == 0 ? "blocks needs serve or bench"
                : "blocks: unknown mode '" + argv[0] + "' (serve or bench)");
        }
        final boolean serve = "serve".equals(argv[0]);
        final String[] rest = java.util.Arrays.copyOfRange(argv, 1, argv.length);
        final Args a = new Args(rest);
        String host = serve ? "0.0.0.0" : null;
        int port = DEFAULT_PORT;
        String device = null;
        long size = 64L << 20;
        String file = null;
        boolean zero = false;
        int clients = 0;
        int connections = 1;
        int depth = 4;
        int blockSize = 4096;
        int read = 50;
        Duration duration = Duration.ofSeconds(5);
        boolean verifyAll = false;
        boolean progress = true;
        Duration timeout = Duration.ofSeconds(10);
        while (a.hasNext())
        {
            final String t = a.nextToken();
            switch (t)
            {
                case "-p", "--port" -> port = a.intValue(t, 1, 65_535);
                case "-d", "--ib-dev" -> device = a.value(t);
                case "--timeout" -> timeout = Duration.ofMillis((long) (seconds(a, t) * 1000));
                case "-a", "--address" -> host = serveOnly(serve, t, a.value(t));
                case "-s", "--size" -> size = serveOnly(serve, t, bytes(a, t, 1L << 40));
                case "-f", "--file" -> file = serveOnly(serve, t, a.value(t));
                case "--zero" -> zero = serveOnly(serve, t, flag(a, t));
                case "--clients" -> clients = serveOnly(serve, t, a.intValue(t, 0, Integer.MAX_VALUE));
                case "-c", "--connections" -> connections = benchOnly(serve, t, a.intValue(t, 1, 4096));
                case "-q", "--queue-depth" -> depth = benchOnly(serve, t, a.intValue(t, 1, 1024));
                case "-b", "--block-size" -> blockSize = benchOnly(serve, t, (int) bytes(a, t, 1 << 30));
                case "-r", "--read-percent" -> read = benchOnly(serve, t, a.intValue(t, 0, 100));
                case "-D", "--duration" -> duration = benchOnly(serve, t,
                    Duration.ofMillis(Math.max(1, (long) (seconds(a, t) * 1000))));
                case "--verify-all" -> verifyAll = benchOnly(serve, t, flag(a, t));
                case "--no-progress" -> progress = !benchOnly(serve, t, flag(a, t));
                default ->
                {
                    if (t.startsWith("-") || serve || host != null)
                    {
                        throw new UsageException("blocks " + argv[0] + ": unknown option or extra argument '" + t
                            + "'");
                    }
                    host = t;
                }
            }
        }
        if (!serve && host == null)
        {
            throw new UsageException("blocks bench needs the server's address (HOST)");
        }
        if (zero && file == null)
        {
            throw new UsageException("--zero needs --file (an anonymous region is always zeroed)");
        }
        if (size < 4096)
        {
            throw new UsageException("option --size must be at least 4096 bytes, got " + size);
        }
        if (blockSize < 64 || blockSize % 64 != 0)
        {
            throw new UsageException("option --block-size must be a multiple of 64 and at least 64, got "
                + blockSize);
        }
        return new BlocksOptions(serve, host, port, device, size, file, zero, clients, connections, depth, blockSize,
            read, duration, verifyAll, progress, timeout);
    }

    private static boolean flag(final Args a, final String t)
    {
        a.noValue(t);
        return true;
    }

    private static <T> T serveOnly(final boolean serve, final String option, final T value)
    {
        if (!serve)
        {
            throw new UsageException("option " + option + " is for blocks serve");
        }
        return value;
    }

    private static <T> T benchOnly(final boolean serve, final String option, final T value)
    {
        if (serve)
        {
            throw new UsageException("option " + option + " is for blocks bench");
        }
        return value;
    }

    private static double seconds(final Args a, final String option)
    {
        final String v = a.value(option);
        try
        {
            final double s = Double.parseDouble(v);
            if (!(s > 0) || s > 1e6)
            {
                throw new UsageException("option " + option + " must be a positive number of seconds, got " + v);
            }
            return s;
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException("option " + option + " needs a number of seconds, got '" + v + "'");
        }
    }

    /** A byte count with an optional k, m or g suffix (powers of 1024). */
    static long bytes(final Args a, final String option, final long max)
    {
        final String v = a.value(option);
        final String lower = v.toLowerCase(java.util.Locale.ROOT);
        final char last = lower.isEmpty() ? ' ' : lower.charAt(lower.length() - 1);
        final int shift = switch (last)
        {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        final String digits = shift == 0 ? lower : lower.substring(0, lower.length() - 1);
        final long n;
        try
        {
            n = Long.parseLong(digits);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException("option " + option + " needs a byte count (k/m/g suffix allowed), got '" + v
                + "'");
        }
        if (n <= 0 || n > (max >> shift))
        {
            throw new UsageException("option " + option + " must be in 1.." + max + " bytes, got " + v);
        }
        return n << shift;
    }
}
