// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.rping;

import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * Options of {@code mlx5j rping}: the letters and defaults of rdma-core's rping (v44 librdmacm/examples/rping.c):
 * {@code -s}/{@code -c}, {@code -a} address, {@code -I} client source address, {@code -p} port (7174), {@code -S}
 * ping size (64; 26..65535, rping's RPING_MIN_BUFSIZE..RPING_BUFSIZE), {@code -C} count (0 = until stopped),
 * {@code -v} print the data, {@code -V} validate it, {@code -d} debug; {@code -q} is accepted (mlx5j always creates
 * and moves its QP itself). Added: {@code --timeout} for every CM step and every wait for the peer.
 */
public record RpingOptions(
    boolean server,
    InetAddress address,
    InetAddress source,
    int port,
    int size,
    int count,
    boolean verbose,
    boolean validate,
    boolean debug,
    Duration timeout)
{
    /** sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT): room for "rdma-ping-2147483647: " and the NUL. */
    static final int MIN_SIZE = 26;
    /** RPING_BUFSIZE - 1. */
    static final int MAX_SIZE = 64 * 1024 - 1;

    public static final String USAGE = String.join("\n",
        "usage: mlx5j rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]",
        "       mlx5j rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]",
        "  rping's protocol over rdma_cm on the Java direct path; talks to an unmodified rping",
        "  -c                client side",
        "  -s                server side (-a ::0 to bind to any IPv6 address)",
        "  -a ADDR           address to connect to / to bind (server default 0.0.0.0)",
        "  -I ADDR           source address to bind to (client)",
        "  -p PORT           port (default 7174)",
        "  -S SIZE           ping data size (default 64, " + MIN_SIZE + ".." + MAX_SIZE + ")",
        "  -C COUNT          number of pings (default 0: until the peer disconnects)",
        "  -v                display the ping data",
        "  -V                validate the ping data (client)",
        "  -d                debug output on stderr",
        "  -q                accepted for compatibility (the QP is always created and moved by mlx5j)",
        "  --timeout SECONDS timeout of every connection step and of every wait for the peer (default 10)");

    public static RpingOptions parse(final String... argv)
    {
        final Args a = new Args(argv);
        Boolean server = null;
        String address = null;
        String source = null;
        int port = 7174;
        int size = 64;
        int count = 0;
        boolean verbose = false;
        boolean validate = false;
        boolean debug = false;
        long timeout = 10;
        while (a.hasNext())
        {
            final String o = a.nextToken();
            switch (o)
            {
                case "-s" ->
                {
                    a.noValue(o);
                    server = Boolean.TRUE;
                }
                case "-c" ->
                {
                    a.noValue(o);
                    server = Boolean.FALSE;
                }
                case "-a" -> address = a.value(o);
                case "-I" -> source = a.value(o);
                case "-p" -> port = a.intValue(o, 0, 65535);
                case "-S" -> size = a.intValue(o, MIN_SIZE, MAX_SIZE);
                case "-C" -> count = a.intValue(o, 0, Integer.MAX_VALUE);
                case "-v" ->
                {
                    a.noValue(o);
                    verbose = true;
                }
                case "-V" ->
                {
                    a.noValue(o);
                    validate = true;
                }
                case "-d" ->
                {
                    a.noValue(o);
                    debug = true;
                }
                case "-q", "--emulated" -> a.noValue(o);
                case "--timeout" -> timeout = a.longValue(o, 1, 86_400);
                default -> throw new UsageException("unknown option or extra argument '" + o + "'");
            }
        }
        if (server == null)
        {
            throw new UsageException("give -s (server) or -c (client)");
        }
        if (!server && address == null)
        {
            throw new UsageException("the client needs -a ADDR");
        }
        return new RpingOptions(server, ip(address == null ? "0.0.0.0" : address), source == null ? null : ip(source),
            port, size, count, verbose, validate, debug, Duration.ofSeconds(timeout));
    }

    private static InetAddress ip(final String text)
    {
        try
        {
            return InetAddress.getByName(text);
        }
        catch (final UnknownHostException ex)
        {
            throw new UsageException("cannot resolve '" + text + "'");
        }
    }
}
