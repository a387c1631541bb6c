package io.mlx5j.tool.perf;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Options of {@code mlx5j perf raw_lat | raw_bw}, those of perftest's {@code raw_ethernet_lat} / {@code
 * raw_ethernet_bw} (perftest v4.5-0.17 perftest_parameters.c: usage_raw_ethernet, parser, set_eth_mtu and the RawEth
 * checks of check_link_and_mtu / force_dependecies):
 * <ul>
 * <li>{@code -s} is the frame size including the 4-byte FCS, at least 64 (RAWETH_MIN_MSG_SIZE) and at most the MTU
 *     option {@code -m} (default 1518, 64..9600); out-of-range sizes are changed as perftest changes them, with its
 *     notice. Defaults: 64 for raw_lat (perftest's 2, raised), the MTU for raw_bw (its 65536, lowered).</li>
 * <li>{@code -n} iterations (default 1000 for both, perftest's DEF_ITERS), or {@code -D} seconds (duration mode,
 *     {@link RawDurationLoops}).</li>
 * <li>{@code -B} this side's MAC, {@code -E} the peer's; {@code -J}/{@code -j} the server's / client's IPv4 address,
 *     {@code -K}/{@code -k} the server's / client's port (UDP, or TCP with {@code --tcp}); {@code -Y} ethertype.
 *     Both sides are given the same {@code -J -j -K -k}.</li>
 * <li>{@code --server} ({@code -Z}) / {@code --client} ({@code -P}): there is no TCP exchange, every address comes
 *     from the command line; a positional host name is accepted and ignored, as perftest's raw tools do. With
 *     neither, both QPs run in this process ({@code --loopback}).</li>
 * </ul>
 *
 * @param srcMac this side's MAC ({@code -B}); in loopback the client QP's
 * @param dstMac the peer's MAC ({@code -E}), or -1 when not given (a raw_bw server need not know it)
 */
public record RawOptions(
    boolean latency,
    int size,
    long iterations,
    String device,
    int ibPort,
    int mtu,
    long srcMac,
    long dstMac,
    boolean hasServerIp,
    int serverIp,
    boolean hasClientIp,
    int clientIp,
    int serverPort,
    int clientPort,
    boolean tcp,
    int ethertype,
    PerfOptions.Role role,
    int txDepth,
    int cqMod,
    int rxDepth,
    int inlineSize,
    DoorbellMode mode,
    Duration timeout,
    boolean progress,
    boolean reportGbits,
    boolean noPeak,
    int duration,
    List<String> notes)
{
    /** RAWETH_MIN_MSG_SIZE. */
    public static final int MIN_SIZE = 64;
    /** MIN_MTU_RAW_ETERNET .. MAX_MTU_RAW_ETERNET; set_eth_mtu's default 1518. */
    public static final int MIN_MTU = 64;
    public static final int MAX_MTU = 9600;
    public static final int DEFAULT_MTU = 1518;
    /** Loopback defaults (locally administered): the client QP's and the server QP's MAC. */
    public static final long LOOPBACK_CLIENT_MAC = 0x02004d4c0001L;
    public static final long LOOPBACK_SERVER_MAC = 0x02004d4c0002L;

    public static final String USAGE = String.join("\n",
        "usage: mlx5j perf raw_lat|raw_bw [options] [HOST]",
        "  raw_lat and raw_bw are perftest's raw_ethernet_lat and raw_ethernet_bw on a RAW_PACKET QP of an Ethernet",
        "  port: the same frames, options and result tables, so either side may be perftest itself. There is no TCP",
        "  exchange: every address comes from the command line, and the server must be up before the client starts",
        "  (it is once it printed its table header). A HOST argument is accepted and ignored, as perftest does.",
        "  raw_lat: ping-pong, the client sends first; raw_bw: the client sends, the server counts what arrives.",
        "  -s, --size BYTES         frame size including the 4-byte FCS, 64..MTU (default 64 raw_lat, MTU raw_bw)",
        "  -n, --iters N            frames each way (raw_lat) or sent (raw_bw) (default 1000)",
        "  -D, --duration SECONDS   run for a time instead: warm-up of SECONDS/4, count in the middle, SECONDS/4",
        "                           more (perftest's duration mode; a server starts its clock at the first frame)",
        "  -m, --mtu BYTES          largest frame size, 64..9600 (default 1518)",
        "  -B, --source_mac MAC     this side's MAC: the destination its flow rule matches (server/client: required)",
        "  -E, --dest_mac MAC       the peer's MAC: the destination of the frames sent (required but on a raw_bw",
        "                           server); loopback defaults: -B 02:00:4d:4c:00:01 -E 02:00:4d:4c:00:02",
        "  -J, --dest_ip A.B.C.D    the server's IPv4 address: frames get an IPv4 header (both sides give the same)",
        "  -j, --source_ip A.B.C.D  the client's IPv4 address",
        "  -K, --dest_port PORT     the server's UDP port (with -k, -J and -j: frames get a UDP header)",
        "  -k, --source_port PORT   the client's UDP port",
        "      --tcp                a TCP header instead of UDP",
        "  -Y, --ethertype 0xXXXX   ethertype of the frames, also matched by the flow rule",
        "      --server, -Z         wait for the client's frames (flow rule installed and receives posted first)",
        "      --client, -P         send to the server (start it first)",
        "      --loopback           both QPs in this process, one thread (default without --server/--client)",
        "  -t, --tx-depth N         raw_bw: frames in flight (default 128)",
        "  -Q, --cq-mod N           signal every N-th send (default 100)",
        "  -r, --rx-depth N         receives kept posted (default 512)",
        "  -I, --inline_size BYTES  inline frames up to BYTES (-s counted) (default 236 raw_lat, 0 raw_bw)",
        "      --doorbell MODE      mlx5j only: blueflame | doorbell | auto (default auto, as libmlx5)",
        "  -d, --ib-dev NAME        device (default: the first one)",
        "  -i, --ib-port PORT       port (default 1; it must be Ethernet)",
        "      --report_gbits       bandwidth in Gb/sec (10^9 bits) instead of MB/sec (2^20 bytes)",
        "  -N, --noPeak             raw_bw: no BW peak (0.00, as perftest; also above 20000 iterations and on the",
        "                           server, which perftest never gives one)",
        "  -F                       accepted and ignored (a note says so)",
        "      --timeout SECONDS    give up when nothing arrives for this long (default 60)",
        "      --no-progress        no progress lines on stderr",
        "      --emulated           (launcher) use the emulated ConnectX, with an Ethernet link, even if a real",
        "                           device exists");

    /** Whether {@code argv} (the words after "perf") names a raw test. */
    public static boolean isRaw(final String[] argv)
    {
        for (final String a : argv)
        {
            if (a.equalsIgnoreCase("raw_lat") || a.equalsIgnoreCase("raw_bw"))
            {
                return true;
            }
        }
        return false;
    }

    /** Frames carry an IPv4 header (perftest: -J or -j given). */
    public boolean hasIp()
    {
        return hasServerIp || hasClientIp;
    }

    /** Frames carry a UDP/TCP header (perftest: -K and -k given). */
    public boolean hasPorts()
    {
        return serverPort >= 0 && clientPort >= 0;
    }

    /** The server's MAC: -B on a server (and in loopback -E, the server QP's), -E on a client. */
    public long serverMac()
    {
        return role == PerfOptions.Role.SERVER ? srcMac : dstMac;
    }

    /** The client's MAC: -B on a client and in loopback, -E on a server (-1 if not given there). */
    public long clientMac()
    {
        return role == PerfOptions.Role.SERVER ? dstMac : srcMac;
    }

    /** Sends whole frames inline (perftest: size <= inline size, -s counted). */
    public boolean inline()
    {
        return size <= inlineSize;
    }

    public String cliName()
    {
        return latency ? "raw_lat" : "raw_bw";
    }

    /** Parses {@code mlx5j perf raw_lat|raw_bw ...} (the word "perf" already removed). */
    public static RawOptions parse(final String... argv)
    {
        final Args a = new Args(argv);
        Boolean latency = null;
        int size = -1;
        long iterations = 1000;
        String device = null;
        int ibPort = 1;
        int mtu = DEFAULT_MTU;
        long srcMac = -1;
        long dstMac = -1;
        boolean hasServerIp = false;
        int serverIp = 0;
        boolean hasClientIp = false;
        int clientIp = 0;
        int serverPort = -1;
        int clientPort = -1;
        boolean tcp = false;
        int ethertype = -1;
        PerfOptions.Role role = null;
        int txDepth = 128;
        int cqMod = 100;
        int rxDepth = 512;
        int inlineSize = -1;
        DoorbellMode mode = DoorbellMode.AUTO;
        long timeoutSeconds = 60;
        boolean progress = true;
        boolean reportGbits = false;
        boolean noPeak = false;
        int duration = 0;
        final List<String> notes = new ArrayList<>();
        while (a.hasNext())
        {
            final String o = a.nextToken();
            switch (o)
            {
                case "-s", "--size" -> size = a.intValue(o, 1, 1 << 20);
                case "-n", "--iters" -> iterations = a.longValue(o, 5, 100_000_000L); // MIN_ITER, MAX_ITER
                case "-d", "--ib-dev", "--device" -> device = a.value(o);
                case "-i", "--ib-port" -> ibPort = a.intValue(o, 1, 255);
                case "-m", "--mtu" -> mtu = a.intValue(o, MIN_MTU, MAX_MTU);
                case "-B", "--source_mac" -> srcMac = mac(o, a.value(o));
                case "-E", "--dest_mac" -> dstMac = mac(o, a.value(o));
                case "-J", "--dest_ip" ->
                {
                    hasServerIp = true;
                    serverIp = ipv4(o, a.value(o));
                }
                case "-j", "--source_ip" ->
                {
                    hasClientIp = true;
                    clientIp = ipv4(o, a.value(o));
                }
                case "-K", "--dest_port" -> serverPort = a.intValue(o, 0, 65535);
                case "-k", "--source_port" -> clientPort = a.intValue(o, 0, 65535);
                case "--tcp" ->
                {
                    a.noValue(o);
                    tcp = true;
                }
                case "-Y", "--ethertype" ->
                {
                    final String v = a.value(o);
                    if (!v.matches("0[xX][0-9a-fA-F]{1,4}"))
                    {
                        throw new UsageException(o + " takes 0xXXXX, not '" + v + "'");
                    }
                    ethertype = Integer.parseInt(v.substring(2), 16);
                }
                case "--server", "-Z" -> role = setRole(role, PerfOptions.Role.SERVER, a, o);
                case "--client", "-P" -> role = setRole(role, PerfOptions.Role.CLIENT, a, o);
                case "--loopback" -> role = setRole(role, PerfOptions.Role.LOOPBACK, a, o);
                case "-t", "--tx-depth" -> txDepth = a.intValue(o, 1, 1 << 15);
                case "-Q", "--cq-mod" -> cqMod = a.intValue(o, 1, 1 << 15);
                case "-r", "--rx-depth" -> rxDepth = a.intValue(o, 1, 1 << 15);
                case "-I", "--inline_size", "--inline-size" -> inlineSize = a.intValue(o, 0, 1024);
                case "--doorbell" -> mode = switch (a.value(o).toLowerCase(Locale.ROOT))
                {
                    case "blueflame", "bf" -> DoorbellMode.BLUEFLAME;
                    case "doorbell", "db" -> DoorbellMode.DOORBELL;
                    case "auto" -> DoorbellMode.AUTO;
                    default -> throw new UsageException("--doorbell is blueflame, doorbell or auto");
                };
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
                case "-p", "--port" ->
                {
                    a.intValue(o, 1, 65535);
                    notes.add(o + " ignored: the raw tests exchange nothing over TCP (perftest's raw tools ignore it "
                        + "too)");
                }
                case "--timeout" -> timeoutSeconds = a.longValue(o, 1, 86_400);
                case "--no-progress" ->
                {
                    a.noValue(o);
                    progress = false;
                }
                case "--emulated" -> a.noValue(o);
                case "-D", "--duration" -> duration = a.intValue(o, 1, 86_400);
                case "-b", "--bidirectional" -> throw new UsageException(o + ": bidirectional raw runs are not "
                    + "supported by mlx5j perf");
                case "-a", "--all" -> throw new UsageException(o + ": perftest's raw tools do not run all sizes either "
                    + "(\"Raw Ethernet tests do not support -a / --all flag\")");
                case "-x", "--gid-index" -> throw new UsageException(o + ": GID index isn't supported for Raw "
                    + "Ethernet tests (as in perftest)");
                case "-q", "--qp" -> throw new UsageException(o + ": mlx5j perf raw_* runs one QP");
                case "--raw_ipv6", "--vlan_en", "--promiscuous", "--sniffer", "--flows", "-v", "--mac_fwd", "-G",
                    "--use_rss", "--raw_mcast" -> throw new UsageException(o + ": not supported by mlx5j perf raw_*");
                default ->
                {
                    if (o.startsWith("-"))
                    {
                        throw new UsageException("unknown option '" + o + "'");
                    }
                    if (latency == null && (o.equalsIgnoreCase("raw_lat") || o.equalsIgnoreCase("raw_bw")))
                    {
                        latency = o.equalsIgnoreCase("raw_lat");
                    }
                    else
                    {
                        notes.add("host '" + o + "' ignored: the raw tests take every address from -B/-E/-J/-j");
                    }
                }
            }
        }
        if (latency == null)
        {
            throw new UsageException("which test? raw_lat or raw_bw");
        }
        if (latency && duration == 0 && iterations > PerfOptions.MAX_LATENCY_ITERATIONS)
        {
            throw new UsageException("raw_lat keeps one 8-byte sample per iteration: at most "
                + PerfOptions.MAX_LATENCY_ITERATIONS + " iterations, got " + iterations);
        }
        if (role == null)
        {
            role = PerfOptions.Role.LOOPBACK;
        }
        if (role == PerfOptions.Role.LOOPBACK)
        {
            srcMac = srcMac < 0 ? LOOPBACK_CLIENT_MAC : srcMac;
            dstMac = dstMac < 0 ? LOOPBACK_SERVER_MAC : dstMac;
        }
        if (srcMac < 0)
        {
            throw new UsageException("you must enter this side's MAC with -B XX:XX:XX:XX:XX:XX (as perftest requires)");
        }
        if (dstMac < 0 && (latency || role == PerfOptions.Role.CLIENT))
        {
            throw new UsageException("you must enter the peer's MAC with -E XX:XX:XX:XX:XX:XX (as perftest requires)");
        }
        if (srcMac == dstMac)
        {
            throw new UsageException("-B and -E are the same MAC: each side would receive its own frames");
        }
        if ((serverPort >= 0) != (clientPort >= 0))
        {
            throw new UsageException("a UDP header needs both ports: -K (server) and -k (client)");
        }
        if (serverPort >= 0 && !(hasServerIp && hasClientIp))
        {
            throw new UsageException("a UDP header needs both IP addresses: -J (server) and -j (client)");
        }
        if (tcp && serverPort < 0)
        {
            throw new UsageException("--tcp needs the IP addresses and ports (-J -j -K -k)");
        }
        if (size == -1)
        {
            size = latency ? MIN_SIZE : mtu;
        }
        else if (size > mtu)
        {
            notes.add("Max msg size in RawEth is MTU " + mtu + "; changing msg size to this MTU (as perftest)");
            size = mtu;
        }
        else if (size < MIN_SIZE)
        {
            notes.add("Min msg size for RawEth is 64B - changing msg size to 64 (as perftest)");
            size = MIN_SIZE;
        }
        if (inlineSize == -1)
        {
            inlineSize = latency ? 236 : 0;     // DEF_INLINE_SEND_RC_UC_XRC for LAT, 0 for BW (ctx_set_max_inline)
        }
        if (cqMod > txDepth && !latency)
        {
            cqMod = txDepth;
        }
        return new RawOptions(latency, size, iterations, device, ibPort, mtu, srcMac, dstMac, hasServerIp,
            serverIp, hasClientIp, clientIp, serverPort, clientPort, tcp, ethertype, role, txDepth, cqMod, rxDepth,
            inlineSize, mode, Duration.ofSeconds(timeoutSeconds), progress, reportGbits,
            noPeak || iterations > RawPeak.MAX_ITERATIONS || duration > 0, duration, List.copyOf(notes));
    }

    private static PerfOptions.Role setRole(final PerfOptions.Role current, final PerfOptions.Role wanted,
        final Args a, final String option)
    {
        a.noValue(option);
        if (current != null && current != wanted)
        {
            throw new UsageException("choose one of --loopback, --server, --client");
        }
        return wanted;
    }

    /** XX:XX:XX:XX:XX:XX as the 48-bit number whose most significant byte is first on the wire. */
    static long mac(final String option, final String v)
    {
        final String[] p = v.split(":");
        if (p.length != 6)
        {
            throw new UsageException(option + " takes a MAC XX:XX:XX:XX:XX:XX, not '" + v + "'");
        }
        long mac = 0;
        for (final String part : p)
        {
            if (!part.matches("[0-9a-fA-F]{1,2}"))
            {
                throw new UsageException(option + " takes a MAC XX:XX:XX:XX:XX:XX, not '" + v + "'");
            }
            mac = mac << 8 | Integer.parseInt(part, 16);
        }
        return mac;
    }

    static int ipv4(final String option, final String v)
    {
        final String[] p = v.split("\\.", -1);
        if (p.length != 4)
        {
            throw new UsageException(option + " takes an IPv4 address A.B.C.D, not '" + v + "'");
        }
        int ip = 0;
        for (final String part : p)
        {
            if (!part.matches("[0-9]{1,3}") || Integer.parseInt(part) > 255)
            {
                throw new UsageException(option + " takes an IPv4 address A.B.C.D, not '" + v + "'");
            }
            ip = ip << 8 | Integer.parseInt(part);
        }
        return ip;
    }

    static String macText(final long mac)
    {
        return String.format(Locale.ROOT, "%02X:%02X:%02X:%02X:%02X:%02X", (mac >>> 40) & 0xff, (mac >>> 32) & 0xff,
            (mac >>> 24) & 0xff, (mac >>> 16) & 0xff, (mac >>> 8) & 0xff, mac & 0xff);
    }

    static String ipText(final int ip)
    {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xff) + "." + ((ip >>> 8) & 0xff) + "." + (ip & 0xff);
    }
}
