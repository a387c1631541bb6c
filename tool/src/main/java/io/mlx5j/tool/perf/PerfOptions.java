package io.mlx5j.tool.perf;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Options of {@code mlx5j perf TEST}, perftest-style (perftest v4.5 perftest_parameters.c defaults: DEF_SIZE_LAT 2,
 * DEF_SIZE_BW 65536, DEF_ITERS 1000, DEF_ITERS_WB 5000, DEF_TX_BW 128, DEF_CQ_MOD 100, DEF_RX_SEND 512, DEF_PORT
 * 18515, DEF_INLINE_WRITE 220, DEF_INLINE_SEND_RC_UC 236, DEF_QKEY; atomics are 8 bytes).
 *
 * @param device    device name, or null for the first device
 * @param gidIndex  local GID index, or -1: LID addressing on InfiniBand, GID 0 on an Ethernet (RoCE) port
 * @param mtu       path MTU in bytes, or 0 for the port's active MTU
 * @param host      the server to connect to ({@link Role#CLIENT}), else null
 */
public record PerfOptions(
    PerfTest test,
    int size,
    long iterations,
    String device,
    int ibPort,
    int gidIndex,
    int inlineSize,
    DoorbellMode mode,
    int txDepth,
    int cqMod,
    int rxDepth,
    int mtu,
    int qpTimeout,
    Role role,
    String host,
    int tcpPort,
    Duration timeout,
    boolean progress,
    boolean reportGbits,
    List<String> notes,
    int outReads,
    boolean rdmaCm,
    boolean noPeak,
    boolean allSizes,
    int duration,
    int margin,
    long warmup)
{
    /** perftest's -a sweep: 2^1 .. 2^23 bytes (MAX_SIZE 8388608; the loops run i = 1 .. 23). */
    public static final int ALL_SIZES_MAX = 1 << 23;
    /** perftest turns the peak off for bw runs longer than this (perftest_parameters.c, iters > 20000). */
    public static final long PEAK_MAX_ITERATIONS = 20_000;

    /** Where the peer is. */
    public enum Role
    {
        /** Both QPs in this process, driven by one thread. */
        LOOPBACK,
        /** Wait for one client on the TCP port. */
        SERVER,
        /** Connect to a server. */
        CLIENT
    }

    public static final int DEFAULT_TCP_PORT = 18515;
    /** Latency samples are kept in a long[] (80 MB at this count). */
    public static final long MAX_LATENCY_ITERATIONS = 10_000_000L;
    /** Warm-up iterations of a two-process latency run (JitWarmup) unless --warmup says otherwise. */
    public static final long DEFAULT_WARMUP = 20_000;
    /** perftest's DEF_QP_TIME: the QP's local ACK timeout exponent, 4.096 us * 2^14 = 67 ms. */
    public static final int DEFAULT_QP_TIMEOUT = 14;
    /** The largest message: one MR of this size is registered per side. */
    public static final int MAX_SIZE = 1 << 30;

    public static final String USAGE = String.join("\n",
        "usage: mlx5j perf TEST [options] [SERVER_HOST]",
        "  TEST: " + PerfTest.names(),
        "  raw_lat, raw_bw: raw Ethernet, perftest's raw_ethernet_lat/_bw (options: mlx5j perf raw_lat --help)",
        "  Options are perftest's (v4.5, its programs say 6.06), and so is the TCP protocol: an mlx5j client runs",
        "  against 'ib_write_lat' etc. as server and the other way round. SERVER_HOST makes this side the client;",
        "  --server waits for one; with neither, both QPs run in this process (--loopback).",
        "  -s, --size BYTES         message size (default 2 for *_lat, 65536 for *_bw; atomic_lat is always 8)",
        "  -n, --iters N            iterations (default 1000 for *_lat, 5000 for *_bw)",
        "  -d, --device NAME        RDMA device (default: the first one)",
        "  -i, --ib-port PORT       device port (default 1)",
        "  -x, --gid-index IDX      local GID index (default: LID on InfiniBand, 0 on Ethernet/RoCE); perftest",
        "                           peers must agree: both or neither use -x on InfiniBand",
        "  -I, --inline-size BYTES  inline WRITE/SEND payloads up to BYTES (default 220 write_lat, 236 send_lat, 0 bw)",
        "      --doorbell MODE      mlx5j only: blueflame | doorbell | auto (default auto, as libmlx5)",
        "  -t, --tx-depth N         bw tests: WQEs in flight (default 128)",
        "  -Q, --cq-mod N           bw tests: signal every N-th WQE (default 100)",
        "  -r, --rx-depth N         send tests: receives kept posted (default 512)",
        "  -m, --mtu BYTES          path MTU 256..4096 (default: the port's active MTU)",
        "  -u, --qp-timeout T       the QP's ACK timeout, 4.096 us * 2^T, 0..31 (default 14: 67 ms; retried 7",
        "                           times before RETRY_EXC_ERR); not with -R, where the CM sets it",
        "      --loopback           both QPs in this process (default without --server/--client)",
        "      --server             wait for a client (perftest or mlx5j) on TCP port -p",
        "      --client HOST        the same as the positional SERVER_HOST",
        "  -o, --outs N             outstanding READs/atomics (default 16, at most what the device allows)",
        "      --report_gbits       bandwidth in Gb/sec (10^9 bits) instead of MB/sec (2^20 bytes)",
        "  -N, --noPeak             bw tests: no BW peak (perftest's column then shows 0.00)",
        "  -F, --use_old_post_send  accepted and ignored (a note says so): mlx5j has no CPU-frequency check and",
        "                           posts through its own Java path",
        "  -c RC, -q 1, -A FETCH_AND_ADD  the only values mlx5j runs (others fail, naming the option)",
        "  -R, --rdma_cm            connect through rdma_cm, as perftest -R: the exchange runs over an rdma_cm",
        "                           control connection to port -p and the test QP is connected by the CM",
        "                           (SERVER_HOST is then an IP address the emulated or real ports own)",
        "  -a, --all                every size 2 .. 2^23 bytes, one row each (not atomics, as in perftest)",
        "  -D, --duration SECONDS   run for SECONDS instead of -n iterations; perftest's report: the",
        "                           iterations counted between a warm-up and a cool-down margin",
        "      --margin SECONDS     that margin (default: a quarter of the duration)",
        "  -p, --port PORT          TCP port of the exchange, or with -R the rdma_cm port (default 18515)",
        "      --timeout SECONDS    limit for the TCP exchange, the server's wait for a client, and any stall",
        "                           of a run (nothing arrives from the peer) (default 60)",
        "      --no-progress        no progress lines on stderr",
        "      --warmup N           mlx5j only, latency tests: before the exchange, run N iterations of the same",
        "                           loops on a private QP pair in this process and wait for the JIT compiler to",
        "                           finish (default " + DEFAULT_WARMUP + " with --server or SERVER_HOST over TCP,",
        "                           0 otherwise); the peer sees nothing of it",
        "      --emulated           (launcher) use the emulated ConnectX even if a real device exists");

    /** Parses {@code mlx5j perf} arguments (the word "perf" already removed). */
    public static PerfOptions parse(final String... argv)
    {
        final Args a = new Args(argv);
        PerfTest test = null;
        int size = -1;
        long iterations = -1;
        String device = null;
        int ibPort = 1;
        int gidIndex = -1;
        int inlineSize = -1;
        DoorbellMode mode = DoorbellMode.AUTO;
        int txDepth = 128;
        int cqMod = 100;
        int rxDepth = 512;
        int mtu = 0;
        int qpTimeout = -1;
        Role role = null;
        String host = null;
        int tcpPort = DEFAULT_TCP_PORT;
        long timeoutSeconds = 60;
        boolean progress = true;
        boolean reportGbits = false;
        int outReads = 16;
        boolean rdmaCm = false;
        boolean noPeak = false;
        boolean allSizes = false;
        int duration = 0;
        int margin = -1;
        long warmup = -1;
        final List<String> notes = new ArrayList<>();
        while (a.hasNext())
        {
            final String o = a.nextToken();
            switch (o)
            {
                case "-s", "--size" -> size = a.intValue(o, 1, MAX_SIZE);
                case "-n", "--iters" -> iterations = a.longValue(o, 1, 1L << 40);
                case "-d", "--device", "--ib-dev" -> device = a.value(o);
                case "-i", "--ib-port" -> ibPort = a.intValue(o, 1, 255);
                case "-x", "--gid-index" -> gidIndex = a.intValue(o, 0, 255);
                case "-g", "--mcg" -> throw new UsageException(o + ": perftest's multicast option; mlx5j does not "
                    + "support multicast (the GID index is -x, as in perftest)");
                case "-I", "--inline-size" -> inlineSize = a.intValue(o, 0, 1024);
                case "--doorbell" -> mode = parseMode(a.value(o));
                case "-o", "--outs" -> outReads = a.intValue(o, 1, 255);
                case "--report_gbits" ->
                {
                    a.noValue(o);
                    reportGbits = true;
                }
                case "-F", "--CPU-freq" ->
                {
                    a.noValue(o);
                    notes.add(o + " ignored: mlx5j times with System.nanoTime, it has no CPU-frequency check");
                }
                case "-N", "--noPeak" ->
                {
                    a.noValue(o);
                    noPeak = true;
                }
                case "--use_old_post_send" ->
                {
                    a.noValue(o);
                    notes.add(o + " ignored: mlx5j posts through its Java direct path, not ibv_post_send");
                }
                case "-c", "--connection" -> requireValue(o, a.value(o), "RC", "mlx5j perf runs RC QPs only");
                case "-q", "--qp" -> requireValue(o, a.value(o), "1", "mlx5j perf runs one QP");
                case "-A", "--atomic_type" -> requireValue(o, a.value(o), "FETCH_AND_ADD",
                    "mlx5j perf's atomic tests post FETCH_AND_ADD");
                case "-R", "--rdma_cm" ->
                {
                    a.noValue(o);
                    rdmaCm = true;
                }
                case "-a", "--all" ->
                {
                    a.noValue(o);
                    allSizes = true;
                }
                case "-D", "--duration" -> duration = a.intValue(o, 1, 86_400);
                case "--margin" -> margin = a.intValue(o, 0, 86_400);
                case "--warmup" -> warmup = a.longValue(o, 0, MAX_LATENCY_ITERATIONS);
                case "-b", "--bidirectional" -> throw new UsageException(o + ": bidirectional runs are not supported "
                    + "by mlx5j perf");
                case "-t", "--tx-depth" -> txDepth = a.intValue(o, 1, 1 << 15);
                case "-u", "--qp-timeout" -> qpTimeout = a.intValue(o, 0, 31);
                case "-Q", "--cq-mod" -> cqMod = a.intValue(o, 1, 1 << 15);
                case "-r", "--rx-depth" -> rxDepth = a.intValue(o, 1, 1 << 15);
                case "-m", "--mtu" -> mtu = parseMtu(a.intValue(o, 256, 4096));
                case "--loopback" -> role = setRole(role, Role.LOOPBACK, a, o);
                case "--server" -> role = setRole(role, Role.SERVER, a, o);
                case "--client" ->
                {
                    role = setRole(role, Role.CLIENT, null, o);
                    host = a.value(o);
                }
                case "-p", "--port" -> tcpPort = a.intValue(o, 1, 65535);
                case "--timeout" -> timeoutSeconds = a.longValue(o, 1, 86_400);
                case "--no-progress" ->
                {
                    a.noValue(o);
                    progress = false;
                }
                case "--emulated" -> a.noValue(o); // the launcher acts on it; nothing to do here
                default ->
                {
                    if (o.startsWith("-"))
                    {
                        throw new UsageException("unknown option '" + o + "'");
                    }
                    if (test != null)
                    {
                        // perftest's positional argument: the server this side connects to
                        if (host != null && role == Role.CLIENT)
                        {
                            throw new UsageException("extra argument '" + o + "' (the server is " + host + ")");
                        }
                        role = setRole(role, Role.CLIENT, null, o);
                        host = o;
                        continue;
                    }
                    test = PerfTest.byName(o.toLowerCase(Locale.ROOT));
                    if (test == null)
                    {
                        throw new UsageException("unknown test '" + o + "'; tests: " + PerfTest.names());
                    }
                }
            }
        }
        if (test == null)
        {
            throw new UsageException("which test? one of: " + PerfTest.names());
        }
        if (allSizes && test.isAtomic())
        {
            // perftest: -a sets the size to MAX_SIZE, and atomics refuse any size but 8
            throw new UsageException("-a: message size cannot be changed for atomic tests (as in perftest)");
        }
        if (allSizes && duration > 0)
        {
            throw new UsageException("-D: duration mode does not run all sizes (-a), as in perftest");
        }
        if (duration > 0)
        {
            if (margin == -1)
            {
                margin = duration / 4;   // perftest: margin defaults to a quarter of the duration
            }
            if (duration <= 2 * margin)
            {
                throw new UsageException("-D " + duration + ": the duration must be longer than twice the margin "
                    + margin + " (as in perftest)");
            }
            noPeak = true;               // perftest: no peak in duration mode
        }
        else if (margin != -1)
        {
            throw new UsageException("--margin applies to duration runs (-D) only");
        }
        if (test == PerfTest.ATOMIC_LAT || test == PerfTest.ATOMIC_BW)
        {
            if (size != -1 && size != 8)
            {
                throw new UsageException(test.cliName() + " moves 8 bytes; -s " + size + " does not apply");
            }
            size = 8;
        }
        if (size == -1)
        {
            size = test.isLatency() ? 2 : 65536;
        }
        if (iterations == -1)
        {
            iterations = test.isLatency() ? 1000 : 5000;
        }
        if (test.isLatency() && iterations > MAX_LATENCY_ITERATIONS)
        {
            throw new UsageException(test.cliName() + " keeps one 8-byte sample per iteration: at most "
                + MAX_LATENCY_ITERATIONS + " iterations, got " + iterations);
        }
        if (inlineSize == -1)
        {
            inlineSize = switch (test)
            {
                case WRITE_LAT -> 220;
                case SEND_LAT -> 236;
                default -> 0;
            };
        }
        if (!test.canInline())
        {
            inlineSize = 0;
        }
        if (cqMod > txDepth)
        {
            cqMod = txDepth; // perftest clamps too: a window smaller than the signal interval would never complete
        }
        if (rdmaCm && (role == null || role == Role.LOOPBACK))
        {
            throw new UsageException("-R connects to a peer through rdma_cm: give --server or the server's address");
        }
        if (warmup > 0 && !test.isLatency())
        {
            throw new UsageException("--warmup applies to the latency tests only");
        }
        if (warmup > 0 && rdmaCm)
        {
            throw new UsageException("--warmup runs before a TCP exchange; with -R there is none");
        }
        if (qpTimeout != -1 && rdmaCm)
        {
            throw new UsageException("-u: with -R the CM sets the QP's timeout");
        }
        if (qpTimeout == -1)
        {
            qpTimeout = DEFAULT_QP_TIMEOUT;
        }
        if (warmup == -1)
        {
            warmup = test.isLatency() && !rdmaCm && role != null && role != Role.LOOPBACK ? DEFAULT_WARMUP : 0;
        }
        return new PerfOptions(test, size, iterations, device, ibPort, gidIndex, inlineSize, mode, txDepth, cqMod,
            rxDepth, mtu, qpTimeout, role == null ? Role.LOOPBACK : role, host, tcpPort,
            Duration.ofSeconds(timeoutSeconds),
            progress, reportGbits, List.copyOf(notes), outReads, rdmaCm,
            noPeak || (!test.isLatency() && iterations > PEAK_MAX_ITERATIONS), allSizes, duration, Math.max(0, margin),
            warmup);
    }

    /** The message sizes of the run: -a's sweep, or the one size. */
    public int[] sizes()
    {
        if (!allSizes)
        {
            return new int[] {size};
        }
        final int[] all = new int[Integer.numberOfTrailingZeros(ALL_SIZES_MAX)];
        for (int i = 0; i < all.length; i++)
        {
            all[i] = 2 << i;
        }
        return all;
    }

    /** The largest message of the run (what the buffers must hold). */
    public int maxSize()
    {
        return allSizes ? ALL_SIZES_MAX : size;
    }

    /** This run at one size of the sweep. */
    public PerfOptions withSize(final int newSize)
    {
        return new PerfOptions(test, newSize, iterations, device, ibPort, gidIndex, inlineSize, mode, txDepth, cqMod,
            rxDepth, mtu, qpTimeout, role, host, tcpPort, timeout, progress, reportGbits, notes, outReads, rdmaCm,
            noPeak,
            allSizes, duration, margin, warmup);
    }

    /** The warm-up run of {@link JitWarmup}: this test at the first size of the run, warmup iterations, both QPs
     * in this process, no duration window; progress as in the run (JitWarmup sends its lines nowhere). */
    public PerfOptions forWarmup()
    {
        return new PerfOptions(test, sizes()[0], warmup, device, ibPort, gidIndex, inlineSize, mode, txDepth,
            cqMod, rxDepth, mtu, qpTimeout, Role.LOOPBACK, null, tcpPort, timeout, progress && duration == 0,
            reportGbits,
            notes, outReads, false, noPeak, false, 0, 0, 0);
    }

    /** True when this run's payloads go inline (the whole message fits the inline size). */
    public boolean inline()
    {
        return test.canInline() && size <= inlineSize;
    }

    private static Role setRole(final Role current, final Role wanted, final Args a, final String option)
    {
        if (a != null)
        {
            a.noValue(option);
        }
        if (current != null && current != wanted)
        {
            throw new UsageException("choose one of --loopback, --server, --client");
        }
        return wanted;
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

    private static void requireValue(final String option, final String value, final String only, final String why)
    {
        if (!value.equalsIgnoreCase(only))
        {
            throw new UsageException(option + " " + value + ": " + why + " (" + option + " " + only + ")");
        }
    }

    private static int parseMtu(final int bytes)
    {
        return switch (bytes)
        {
            case 256, 512, 1024, 2048, 4096 -> bytes;
            default -> throw new UsageException("--mtu is 256, 512, 1024, 2048 or 4096, not " + bytes);
        };
    }
}
