// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;

import java.util.Locale;

/**
 * The part of {@link PerfOptions} that {@code mlx5j perf raw_lat | raw_bw} add, those of perftest's {@code
 * raw_ethernet_lat} / {@code raw_ethernet_bw} (perftest v4.5-0.17 perftest_parameters.c: usage_raw_ethernet, parser,
 * set_eth_mtu and the RawEth checks of check_link_and_mtu / force_dependecies):
 * <ul>
 * <li>{@code -s} is the frame size including the 4-byte FCS, at least 64 (RAWETH_MIN_MSG_SIZE) and at most the MTU
 *     option {@code -m} (default 1518, 64..9600); out-of-range sizes are changed as perftest changes them, with its
 *     notice. Defaults: 64 for raw_lat (perftest's 2, raised), the MTU for raw_bw (its 65536, lowered).</li>
 * <li>{@code -n} iterations (default 1000 for both, perftest's DEF_ITERS), or {@code -D} seconds (duration mode).</li>
 * <li>{@code -B} this side's MAC, {@code -E} the peer's; {@code -J}/{@code -j} the server's / client's IPv4 address,
 *     {@code -K}/{@code -k} the server's / client's port (UDP, or TCP with {@code --tcp}); {@code -Y} ethertype.
 *     Both sides are given the same {@code -J -j -K -k}.</li>
 * <li>{@code --server} ({@code -Z}) / {@code --client} ({@code -P}): one of them is required, as perftest's raw tools
 *     require it ("you must choose test side"); there is no TCP exchange, every address comes from the command line,
 *     and a positional host name is accepted and ignored, as perftest's raw tools do. {@code --loopback} runs both
 *     QPs in this process instead.</li>
 * </ul>
 *
 * @param serverMac the server's MAC: -B on a server, -E on a client (in loopback the server QP's)
 * @param clientMac the client's MAC: -B on a client, -E on a server, where it may be -1 (a raw_bw server need not
 *                  know it)
 */
public record RawOptions(
    int mtu,
    long serverMac,
    long clientMac,
    boolean hasServerIp,
    int serverIp,
    boolean hasClientIp,
    int clientIp,
    int serverPort,
    int clientPort,
    boolean tcp,
    int ethertype)
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
        "  Choose the side as perftest requires: --server or --client (or --loopback, mlx5j only).",
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
        "      --loopback           mlx5j only: a client QP and a server QP in this process, one thread",
        "  -t, --tx-depth N         raw_bw: frames in flight (default 128)",
        "  -Q, --cq-mod N           signal every N-th send (default 100, at most -t)",
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

    /** The raw tests' options, defaults and checks. */
    static final class Parser implements PerfOptions.Part
    {
        private int mtu = DEFAULT_MTU;
        private long srcMac = -1;
        private long dstMac = -1;
        private boolean hasServerIp;
        private int serverIp;
        private boolean hasClientIp;
        private int clientIp;
        private int serverPort = -1;
        private int clientPort = -1;
        private boolean tcp;
        private int ethertype = -1;

        @Override
        public int maxSize()
        {
            return 1 << 20;
        }

        @Override
        public long minIterations()
        {
            return 5;               // MIN_ITER
        }

        @Override
        public long maxIterations()
        {
            return 100_000_000L;    // MAX_ITER
        }

        @Override
        public boolean option(final String o, final Args a, final PerfOptions.Common c)
        {
            switch (o)
            {
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
                case "-Z" ->
                {
                    a.noValue(o);
                    c.role(PerfOptions.Role.SERVER);
                }
                case "--client", "-P" ->
                {
                    a.noValue(o);
                    c.role(PerfOptions.Role.CLIENT);
                }
                case "-p", "--port" ->
                {
                    a.intValue(o, 1, 65535);
                    c.notes.add(o + " ignored: the raw tests exchange nothing over TCP (perftest's raw tools ignore "
                        + "it too)");
                }
                case "-a", "--all" -> throw new UsageException(o + ": perftest's raw tools do not run all sizes either "
                    + "(\"Raw Ethernet tests do not support -a / --all flag\")");
                case "-x", "--gid-index" -> throw new UsageException(o + ": GID index isn't supported for Raw "
                    + "Ethernet tests (as in perftest)");
                case "-q", "--qp" -> throw new UsageException(o + ": mlx5j perf raw_* runs one QP");
                case "--raw_ipv6", "--vlan_en", "--promiscuous", "--sniffer", "--flows", "-v", "--mac_fwd", "-G",
                    "--use_rss", "--raw_mcast" -> throw new UsageException(o + ": not supported by mlx5j perf raw_*");
                default ->
                {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void positional(final String word, final PerfOptions.Common c)
        {
            c.notes.add("host '" + word + "' ignored: the raw tests take every address from -B/-E/-J/-j");
        }

        @Override
        public String whichTest()
        {
            return "which test? raw_lat or raw_bw";
        }

        @Override
        public PerfOptions finish(final PerfOptions.Common c)
        {
            final boolean latency = c.test.isLatency();
            if (c.role == null)
            {
                throw new UsageException("choose the test side: --server or --client, as perftest's raw tools "
                    + "require (\"you must choose test side\"), or --loopback for both QPs in this process");
            }
            if (c.role == PerfOptions.Role.LOOPBACK)
            {
                srcMac = srcMac < 0 ? LOOPBACK_CLIENT_MAC : srcMac;
                dstMac = dstMac < 0 ? LOOPBACK_SERVER_MAC : dstMac;
            }
            if (srcMac < 0)
            {
                throw new UsageException("you must enter this side's MAC with -B XX:XX:XX:XX:XX:XX (as perftest "
                    + "requires)");
            }
            if (dstMac < 0 && (latency || c.role == PerfOptions.Role.CLIENT))
            {
                throw new UsageException("you must enter the peer's MAC with -E XX:XX:XX:XX:XX:XX (as perftest "
                    + "requires)");
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
            if (c.iterations == -1)
            {
                c.iterations = 1000;
            }
            if (c.size == -1)
            {
                c.size = latency ? MIN_SIZE : mtu;
            }
            else if (c.size > mtu)
            {
                c.notes.add("Max msg size in RawEth is MTU " + mtu + "; changing msg size to this MTU (as perftest)");
                c.size = mtu;
            }
            else if (c.size < MIN_SIZE)
            {
                c.notes.add("Min msg size for RawEth is 64B - changing msg size to 64 (as perftest)");
                c.size = MIN_SIZE;
            }
            if (c.inlineSize == -1)
            {
                c.inlineSize = latency ? 236 : 0; // DEF_INLINE_SEND_RC_UC_XRC for LAT, 0 for BW (ctx_set_max_inline)
            }
            final boolean server = c.role == PerfOptions.Role.SERVER;
            return c.build(null, new RawOptions(mtu, server ? srcMac : dstMac, server ? dstMac : srcMac, hasServerIp,
                serverIp, hasClientIp, clientIp, serverPort, clientPort, tcp, ethertype));
        }
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
