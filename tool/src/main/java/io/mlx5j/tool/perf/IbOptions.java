// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;

/**
 * The part of {@link PerfOptions} that perftest's ib_* tests add (write_lat ... atomic_bw: an RC QP connected through
 * perftest's exchange; perftest v4.5 perftest_parameters.c defaults: DEF_SIZE_LAT 2, DEF_SIZE_BW 65536, DEF_ITERS
 * 1000, DEF_ITERS_WB 5000, DEF_PORT 18515, DEF_INLINE_WRITE 220, DEF_INLINE_SEND_RC_UC 236; atomics are 8 bytes).
 * perftest's sides: a server host on the command line makes this side the client, none the server.
 *
 * @param gidIndex  local GID index, or -1: LID addressing on InfiniBand, GID 0 on an Ethernet (RoCE) port
 * @param mtu       path MTU in bytes, or 0 for the port's active MTU
 * @param qpTimeout the QP's local ACK timeout exponent ({@code -u})
 * @param host      the server to connect to ({@link PerfOptions.Role#CLIENT}), else null
 * @param tcpPort   the exchange's TCP port, or with {@code -R} its rdma_cm port
 * @param warmup    iterations of the JIT warm-up before a latency run ({@link JitWarmup}; by default before a
 *                  two-process run over TCP only), or 0
 * @param qps       QPs per side ({@code -q}): the bw tests post round-robin over them, {@code -n} messages each,
 *                  their completions on one CQ, as perftest's run_iter_bw
 * @param connection the transport ({@code -c}): "RC", "XRC" (XRC INI and TGT QPs and an XRC SRQ,
 *                  {@link XrcEndpoint}) or "DC" (a DCI and a DCT per side, {@link DcExchange})
 */
public record IbOptions(
    int gidIndex,
    int mtu,
    int qpTimeout,
    String host,
    int tcpPort,
    int outReads,
    boolean rdmaCm,
    boolean allSizes,
    long warmup,
    int qps,
    String connection)
{
    /** The most QPs per side {@code -q} takes (perftest has no limit; each QP costs rings and a CQ's share). */
    public static final int MAX_QPS = 4096;

    /** @return whether {@code -c XRC} was given */
    public boolean xrc()
    {
        return "XRC".equals(connection);
    }
    /** perftest's -a sweep: 2^1 .. 2^23 bytes (MAX_SIZE 8388608; the loops run i = 1 .. 23). */
    public static final int ALL_SIZES_MAX = 1 << 23;
    public static final int DEFAULT_TCP_PORT = 18515;
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
        "  against 'ib_write_lat' etc. as server and the other way round. As with perftest, SERVER_HOST makes this",
        "  side the client; without it this side is the server and waits for one on port -p.",
        "  -s, --size BYTES         message size (default 2 for *_lat, 65536 for *_bw; atomic_lat is always 8)",
        "  -n, --iters N            iterations (default 5000 for write_bw, 1000 for the others, as perftest)",
        "  -d, --device NAME        RDMA device (default: the first one)",
        "  -i, --ib-port PORT       device port (default 1)",
        "  -x, --gid-index IDX      local GID index (default: LID on InfiniBand, 0 on Ethernet/RoCE); perftest",
        "                           peers must agree: both or neither use -x on InfiniBand",
        "  -I, --inline_size BYTES  inline WRITE/SEND payloads up to BYTES (default 220 write_lat, 236 send_lat, 0 bw;",
        "                           also --inline-size)",
        "      --doorbell MODE      mlx5j only: blueflame | doorbell | auto (default auto, as libmlx5)",
        "  -t, --tx-depth N         bw tests: WQEs in flight (default 128)",
        "  -Q, --cq-mod N           bw tests: signal every N-th WQE (default 100)",
        "  -r, --rx-depth N         send tests: receives kept posted (default 512)",
        "  -m, --mtu BYTES          path MTU 256..4096 (default: the port's active MTU)",
        "  -u, --qp-timeout T       the QP's ACK timeout, 4.096 us * 2^T, 0..31 (default 14: 67 ms; retried 7",
        "                           times before RETRY_EXC_ERR); not with -R, where the CM sets it",
        "      --loopback           mlx5j only: both QPs in this process, one thread; no peer, no exchange",
        "      --server             the server (the default without SERVER_HOST): wait for a client, perftest or",
        "                           mlx5j, on TCP port -p",
        "      --client HOST        the same as the positional SERVER_HOST",
        "  -o, --outs N             outstanding READs/atomics (default 16, at most what the device allows)",
        "      --report_gbits       bandwidth in Gb/sec (10^9 bits) instead of MB/sec (2^20 bytes)",
        "  -N, --noPeak             bw tests: no BW peak (perftest's column then shows 0.00)",
        "  -F, --CPU-freq           accepted and ignored (a note says so): mlx5j has no CPU-frequency check",
        "      --use_old_post_send  accepted and ignored (a note says so): mlx5j posts through its own Java path",
        "  -q, --qp N               write_bw, read_bw, send_bw over TCP: N QPs per side, -n messages each, posted",
        "                           round-robin, one CQ (as perftest -q); default 1",
        "  -c RC|XRC|DC             connection type (default RC); XRC: XRC INI and TGT QPs and an XRC SRQ as",
        "                           perftest -c XRC (not with -R, as in perftest); DC as perftest -c DC, a DCI and",
        "                           a DCT (on an SRQ) per side, the DC key 0xffeeddcc, over TCP, one QP, not -R",
        "  -A FETCH_AND_ADD         the only atomic mlx5j runs (others fail, naming the option)",
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
        "      --warmup N           mlx5j only, latency tests: before the exchange (or the --loopback run), run",
        "                           N iterations of the same loops on a private QP pair in this process and wait",
        "                           for the JIT compiler to finish (default " + DEFAULT_WARMUP + " for a server or a",
        "                           client over TCP, 0 with --loopback); the peer sees nothing of it",
        "      --emulated           (launcher) use the emulated ConnectX even if a real device exists");

    /** This part in the warm-up run: no peer, no exchange, one size. */
    IbOptions forWarmup()
    {
        // the warm-up runs the same QP kinds as the test, but for DC (its warm-up pair is RC: one process, no DCT)
        return new IbOptions(gidIndex, mtu, qpTimeout, null, tcpPort, outReads, false, false, 0, 1,
            xrc() ? "XRC" : "RC");
    }

    /** The ib_* tests' options, defaults and checks. */
    static final class Parser implements PerfOptions.Part
    {
        private int gidIndex = -1;
        private int mtu;
        private int qpTimeout = -1;
        private String host;
        private int tcpPort = DEFAULT_TCP_PORT;
        private int outReads = 16;
        private boolean rdmaCm;
        private boolean allSizes;
        private long warmup = -1;
        private int qps = 1;
        private String connection = "RC";

        @Override
        public int maxSize()
        {
            return MAX_SIZE;
        }

        @Override
        public long minIterations()
        {
            return 1;
        }

        @Override
        public long maxIterations()
        {
            return 1L << 40;
        }

        @Override
        public boolean option(final String o, final Args a, final PerfOptions.Common c)
        {
            switch (o)
            {
                case "-x", "--gid-index" -> gidIndex = a.intValue(o, 0, 255);
                case "-g", "--mcg" -> throw new UsageException(o + ": perftest's multicast option; mlx5j does not "
                    + "support multicast (the GID index is -x, as in perftest)");
                case "-m", "--mtu" -> mtu = parseMtu(a.intValue(o, 256, 4096));
                case "-u", "--qp-timeout" -> qpTimeout = a.intValue(o, 0, 31);
                case "-o", "--outs" -> outReads = a.intValue(o, 1, 255);
                case "-p", "--port" -> tcpPort = a.intValue(o, 1, 65535);
                case "--use_old_post_send" ->
                {
                    a.noValue(o);
                    c.notes.add(o + " ignored: mlx5j posts through its Java direct path, not ibv_post_send");
                }
                case "-c", "--connection" -> connection = connectionOf(o, a.value(o));
                case "-q", "--qp" -> qps = a.intValue(o, 1, MAX_QPS);
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
                case "--margin" -> c.margin = a.intValue(o, 0, 86_400);
                case "--warmup" -> warmup = a.longValue(o, 0, PerfOptions.MAX_LATENCY_ITERATIONS);
                case "--client" ->
                {
                    c.role(PerfOptions.Role.CLIENT);
                    host = a.value(o);
                }
                default ->
                {
                    return false;
                }
            }
            return true;
        }

        /** perftest's positional argument (after the test): the server this side connects to. */
        @Override
        public void positional(final String word, final PerfOptions.Common c)
        {
            if (c.test == null)
            {
                throw new UsageException("unknown test '" + word + "'; tests: " + PerfTest.names());
            }
            if (host != null && c.role == PerfOptions.Role.CLIENT)
            {
                throw new UsageException("extra argument '" + word + "' (the server is " + host + ")");
            }
            c.role(PerfOptions.Role.CLIENT);
            host = word;
        }

        @Override
        public String whichTest()
        {
            return "which test? one of: " + PerfTest.names();
        }

        @Override
        public PerfOptions finish(final PerfOptions.Common c)
        {
            final PerfTest test = c.test;
            if (allSizes && test.isAtomic())
            {
                // perftest: -a sets the size to MAX_SIZE, and atomics refuse any size but 8
                throw new UsageException("-a: message size cannot be changed for atomic tests (as in perftest)");
            }
            if (allSizes && c.duration > 0)
            {
                throw new UsageException("-D: duration mode does not run all sizes (-a), as in perftest");
            }
            if (test.isAtomic())
            {
                if (c.size != -1 && c.size != 8)
                {
                    throw new UsageException(test.cliName() + " moves 8 bytes; -s " + c.size + " does not apply");
                }
                c.size = 8;
            }
            if (c.size == -1)
            {
                c.size = test.isLatency() ? 2 : 65536;
            }
            if (c.iterations == -1)
            {
                // perftest_parameters.c: DEF_ITERS_WB for write_bw alone, DEF_ITERS for every other test (a send_bw
                // server that expected 5000 against perftest's 1000 waited for SENDs that never came)
                c.iterations = test == PerfTest.WRITE_BW ? 5000 : 1000;
            }
            if (c.inlineSize == -1)
            {
                c.inlineSize = switch (test)
                {
                    // perftest's DEF_INLINE_DC for both over DC: a DCI's WQE also carries the DC address
                    case WRITE_LAT -> "DC".equals(connection) ? DcExchange.DEFAULT_INLINE : 220;
                    case SEND_LAT -> "DC".equals(connection) ? DcExchange.DEFAULT_INLINE : 236;
                    default -> 0;
                };
            }
            if (!test.canInline())
            {
                c.inlineSize = 0;
            }
            if (c.role == null)
            {
                c.role = PerfOptions.Role.SERVER;   // perftest: no server name, so this side is the server
            }
            if (rdmaCm && c.role == PerfOptions.Role.LOOPBACK)
            {
                throw new UsageException("-R connects to a peer through rdma_cm: not with --loopback");
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
                warmup = test.isLatency() && !rdmaCm && c.role != PerfOptions.Role.LOOPBACK ? DEFAULT_WARMUP : 0;
            }
            if (qps > 1 && test != PerfTest.WRITE_BW && test != PerfTest.READ_BW && test != PerfTest.SEND_BW)
            {
                throw new UsageException("-q " + qps + ": mlx5j perf runs several QPs in write_bw, read_bw and "
                    + "send_bw only");
            }
            if (qps > 1 && rdmaCm)
            {
                throw new UsageException("-q " + qps + ": several QPs are exchanged over TCP only, not with -R");
            }
            if ("XRC".equals(connection) && rdmaCm)
            {
                throw new UsageException("-c XRC: XRC does not support RDMA_CM (-R), as in perftest");
            }
            if (qps > 1 && c.duration > 0)
            {
                throw new UsageException("-q " + qps + ": several QPs run -n iterations each, not -D");
            }
            if ("DC".equals(connection))
            {
                DcExchange.check(test, c.role, rdmaCm, qps);
            }
            return c.build(new IbOptions(gidIndex, mtu, qpTimeout, host, tcpPort, outReads, rdmaCm, allSizes,
                warmup, qps, connection), null);
        }

        /** {@code -c}: RC, XRC or DC (perftest's other transports fail, naming the option). */
        private static String connectionOf(final String option, final String value)
        {
            final String v = value.toUpperCase(java.util.Locale.ROOT);
            if (!v.equals("RC") && !v.equals("XRC") && !v.equals("DC"))
            {
                throw new UsageException(option + " " + value + ": mlx5j perf runs RC, XRC and DC QPs (" + option
                    + " RC, " + option + " XRC, " + option + " DC)");
            }
            return v;
        }

        private static void requireValue(final String option, final String value, final String only,
            final String why)
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
}
