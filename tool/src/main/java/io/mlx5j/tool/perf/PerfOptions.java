// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Options of {@code mlx5j perf TEST}, perftest's (perftest v4.5 perftest_parameters.c): the options every test has
 * are defined here once; the test's transport adds its own part, {@link IbOptions} for the ib_* tests (an RC QP
 * connected through perftest's exchange) or {@link RawOptions} for raw_lat / raw_bw (frames on a RAW_PACKET QP, every
 * address from the command line). One parser reads both: a word naming a raw test selects the raw part, as
 * perftest's raw tools are separate programs.
 * <p>
 * The side is perftest's: an ib_* test given a server host is the client, without one the server (so
 * {@code mlx5j perf write_lat -p 18515} waits for {@code ib_write_lat -p 18515 HOST}); a raw test names its side
 * ({@code --server} / {@code --client}), as perftest's raw tools require. {@code --loopback} (mlx5j only) runs both
 * QPs in this process, one thread.
 *
 * @param size       message size (raw: the frame including its 4-byte FCS)
 * @param inlineSize messages up to this size go inline (0 where nothing can: READ, atomics)
 * @param margin     seconds of warm-up and of cool-down around the sample window of a duration run ({@code -D})
 * @param ib         the ib_* tests' part, or null for a raw test
 * @param raw        the raw tests' part, or null for an ib_* test
 */
public record PerfOptions(
    PerfTest test,
    int size,
    long iterations,
    String device,
    int ibPort,
    int inlineSize,
    DoorbellMode mode,
    int txDepth,
    int cqMod,
    int rxDepth,
    Role role,
    Duration timeout,
    boolean progress,
    boolean reportGbits,
    boolean noPeak,
    int duration,
    int margin,
    List<String> notes,
    IbOptions ib,
    RawOptions raw)
{
    /** perftest turns the peak off for bw runs longer than this (perftest_parameters.c, iters > 20000). */
    public static final long PEAK_MAX_ITERATIONS = 20_000;
    /** Latency samples are kept in a long[] (80 MB at this count). */
    public static final long MAX_LATENCY_ITERATIONS = 10_000_000L;
    /** Send WQEs of a latency test; it signals every cq-mod-th send, at most every half of them. */
    public static final int LAT_SEND_DEPTH = 64;

    /** Where the peer is. */
    public enum Role
    {
        /** Both QPs in this process, driven by one thread ({@code --loopback}). */
        LOOPBACK,
        /** Wait for the client: an ib_* test given no server host, or {@code --server}. */
        SERVER,
        /** Connect to (send to) the server. */
        CLIENT
    }

    /** Parses {@code mlx5j perf} arguments (the word "perf" already removed). */
    public static PerfOptions parse(final String... argv)
    {
        return isRaw(argv) ? parse(argv, new RawOptions.Parser()) : parse(argv, new IbOptions.Parser());
    }

    /** Whether {@code argv} (the words after "perf") names a raw test: then the raw part's options apply. */
    public static boolean isRaw(final String[] argv)
    {
        for (final String a : argv)
        {
            if (a.equalsIgnoreCase(PerfTest.RAW_LAT.cliName()) || a.equalsIgnoreCase(PerfTest.RAW_BW.cliName()))
            {
                return true;
            }
        }
        return false;
    }

    /** The usage text for {@code argv}: the raw tests' or the ib_* tests'. */
    public static String usage(final String[] argv)
    {
        return isRaw(argv) ? RawOptions.USAGE : IbOptions.USAGE;
    }

    private static PerfOptions parse(final String[] argv, final Part part)
    {
        final Args a = new Args(argv);
        final Common c = new Common();
        while (a.hasNext())
        {
            final String o = a.nextToken();
            if (common(o, a, c, part) || part.option(o, a, c))
            {
                continue;
            }
            if (o.startsWith("-"))
            {
                throw new UsageException("unknown option '" + o + "'");
            }
            if (c.test == null)
            {
                final PerfTest t = PerfTest.byName(o.toLowerCase(Locale.ROOT));
                if (t != null && t.isRaw() == (part instanceof RawOptions.Parser))
                {
                    c.test = t;
                    continue;
                }
            }
            part.positional(o, c);
        }
        if (c.test == null)
        {
            throw new UsageException(part.whichTest());
        }
        if (c.duration > 0)
        {
            if (c.margin == -1)
            {
                c.margin = c.duration / 4;  // perftest: margin defaults to a quarter of the duration
            }
            if (c.duration <= 2 * c.margin)
            {
                throw new UsageException("-D " + c.duration + ": the duration must be longer than twice the margin "
                    + c.margin + " (as in perftest)");
            }
        }
        else if (c.margin != -1)
        {
            throw new UsageException("--margin applies to duration runs (-D) only");
        }
        if (c.test.isLatency() && c.duration == 0 && c.iterations > MAX_LATENCY_ITERATIONS)
        {
            throw new UsageException(c.test.cliName() + " keeps one 8-byte sample per iteration: at most "
                + MAX_LATENCY_ITERATIONS + " iterations, got " + c.iterations);
        }
        return part.finish(c);
    }

    /** The options every test has; false when {@code o} is none of them. */
    private static boolean common(final String o, final Args a, final Common c, final Part part)
    {
        switch (o)
        {
            case "-s", "--size" -> c.size = a.intValue(o, 1, part.maxSize());
            case "-n", "--iters" -> c.iterations = a.longValue(o, part.minIterations(), part.maxIterations());
            case "-d", "--device", "--ib-dev" -> c.device = a.value(o);
            case "-i", "--ib-port" -> c.ibPort = a.intValue(o, 1, 255);
            case "-I", "--inline-size", "--inline_size" -> c.inlineSize = a.intValue(o, 0, 1024);
            case "--doorbell" -> c.mode = parseMode(a.value(o));
            case "-t", "--tx-depth" -> c.txDepth = a.intValue(o, 1, 1 << 15);
            case "-Q", "--cq-mod" -> c.cqMod = a.intValue(o, 1, 1 << 15);
            case "-r", "--rx-depth" -> c.rxDepth = a.intValue(o, 1, 1 << 15);
            case "-D", "--duration" -> c.duration = a.intValue(o, 1, 86_400);
            case "--timeout" -> c.timeoutSeconds = a.longValue(o, 1, 86_400);
            case "--report_gbits" ->
            {
                a.noValue(o);
                c.reportGbits = true;
            }
            case "-N", "--noPeak" ->
            {
                a.noValue(o);
                c.noPeak = true;
            }
            case "-F", "--CPU-freq" ->
            {
                a.noValue(o);
                c.notes.add(o + " ignored: mlx5j times with System.nanoTime, it has no CPU-frequency check");
            }
            case "--no-progress" ->
            {
                a.noValue(o);
                c.progress = false;
            }
            case "-b", "--bidirectional" -> throw new UsageException(o + ": bidirectional runs are not supported "
                + "by mlx5j perf");
            case "--loopback" ->
            {
                a.noValue(o);
                c.role(Role.LOOPBACK);
            }
            case "--server" ->
            {
                a.noValue(o);
                c.role(Role.SERVER);
            }
            case "--emulated" -> a.noValue(o); // the launcher acts on it; nothing to do here
            default ->
            {
                return false;
            }
        }
        return true;
    }

    /** The message sizes of the run: -a's sweep, or the one size. */
    public int[] sizes()
    {
        if (ib == null || !ib.allSizes())
        {
            return new int[] {size};
        }
        final int[] all = new int[Integer.numberOfTrailingZeros(IbOptions.ALL_SIZES_MAX)];
        for (int i = 0; i < all.length; i++)
        {
            all[i] = 2 << i;
        }
        return all;
    }

    /** The largest message of the run (what the buffers must hold). */
    public int maxSize()
    {
        return ib != null && ib.allSizes() ? IbOptions.ALL_SIZES_MAX : size;
    }

    /** This run at one size of the sweep. */
    public PerfOptions withSize(final int newSize)
    {
        return new PerfOptions(test, newSize, iterations, device, ibPort, inlineSize, mode, txDepth, cqMod, rxDepth,
            role, timeout, progress, reportGbits, noPeak, duration, margin, notes, ib, raw);
    }

    /** The warm-up run of {@link JitWarmup}: this test at the first size of the run, warmup iterations, both QPs
     * in this process, no duration window; progress as in the run (JitWarmup sends its lines nowhere). */
    public PerfOptions forWarmup()
    {
        return new PerfOptions(test, sizes()[0], ib.warmup(), device, ibPort, inlineSize, mode, txDepth, cqMod,
            rxDepth, Role.LOOPBACK, timeout, progress && duration == 0, reportGbits, noPeak, 0, 0, notes,
            ib.forWarmup(), null);
    }

    /** True when this run's messages go inline (the whole message fits the inline size). */
    public boolean inline()
    {
        return test.canInline() && size <= inlineSize;
    }

    /** Send WQEs of a QP: {@link #LAT_SEND_DEPTH} in latency tests, else tx-depth (at least 16). */
    public int sendDepth()
    {
        return test.isLatency() ? LAT_SEND_DEPTH : Math.max(txDepth, 16);
    }

    /** Every how many sends one is signaled: cq-mod, in latency tests at most half of {@link #LAT_SEND_DEPTH}. */
    public int signalInterval()
    {
        return test.isLatency() ? Math.min(cqMod, LAT_SEND_DEPTH / 2) : cqMod;
    }

    private static DoorbellMode parseMode(final String v)
    {
        return switch (v.toLowerCase(Locale.ROOT))
        {
            case "blueflame", "bf" -> DoorbellMode.BLUEFLAME;
            case "doorbell", "db" -> DoorbellMode.DOORBELL;
            case "auto" -> DoorbellMode.AUTO;
            default -> throw new UsageException("--doorbell is blueflame, doorbell or auto, not '" + v + "'");
        };
    }

    /**
     * What a transport adds to the common options: its own options and the ranges of the common ones, what a word
     * that is not the test means, and the defaults and checks that end the parse.
     */
    interface Part
    {
        /** The largest {@code -s}. */
        int maxSize();

        long minIterations();

        long maxIterations();

        /** Takes {@code o} when it is this part's option (its value from {@code a}); false when it is not. */
        boolean option(String o, Args a, Common c);

        /** A word that is neither an option nor the test. */
        void positional(String word, Common c);

        /** The message when no test was named. */
        String whichTest();

        /** This part's defaults and checks, then the options ({@link Common#build}). */
        PerfOptions finish(Common c);
    }

    /** The common options as the parse collects them (-1: not given); the part completes and builds them. */
    static final class Common
    {
        PerfTest test;
        int size = -1;
        long iterations = -1;
        String device;
        int ibPort = 1;
        int inlineSize = -1;
        DoorbellMode mode = DoorbellMode.AUTO;
        int txDepth = 128;
        int cqMod = 100;
        int rxDepth = 512;
        Role role;
        long timeoutSeconds = 60;
        boolean progress = true;
        boolean reportGbits;
        boolean noPeak;
        int duration;
        int margin = -1;
        final List<String> notes = new ArrayList<>();

        /** Sets the side; a second, different one is a usage error. */
        void role(final Role wanted)
        {
            if (role != null && role != wanted)
            {
                throw new UsageException("choose one of --loopback, --server, --client");
            }
            role = wanted;
        }

        /** The options with {@code ib} or {@code raw} as the transport's part. */
        PerfOptions build(final IbOptions ib, final RawOptions raw)
        {
            if (cqMod > txDepth)
            {
                cqMod = txDepth;    // perftest clamps too: a window smaller than the signal interval never completes
            }
            // perftest: no peak in duration mode, nor for more than 20000 bw iterations (the search is quadratic)
            final boolean peakOff = noPeak || duration > 0 || (!test.isLatency() && iterations > PEAK_MAX_ITERATIONS);
            return new PerfOptions(test, size, iterations, device, ibPort, inlineSize, mode, txDepth, cqMod, rxDepth,
                role, Duration.ofSeconds(timeoutSeconds), progress, reportGbits, peakOff, duration,
                Math.max(0, margin), List.copyOf(notes), ib, raw);
        }
    }
}
