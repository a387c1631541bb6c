// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.pingpong;

import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;
import java.time.Duration;

/**
 * Options of {@code mlx5j pingpong}: those of ibv_rc_pingpong / ibv_ud_pingpong (rdma-core v44
 * libibverbs/examples, same letters and defaults), plus {@code --ud} to speak ud_pingpong's variant and
 * {@code --timeout} for the TCP exchange. Without HOST it is the server.
 *
 * @param gidIndex -1 = no GID (LID addressing), as the examples' default
 * @param mtu      RC path MTU in bytes (the examples' -m, default 1024); UD uses the port's active MTU
 */
public record PingpongOptions(
    boolean ud,
    String host,
    int tcpPort,
    String device,
    int ibPort,
    int size,
    int mtu,
    int rxDepth,
    int iterations,
    int sl,
    int gidIndex,
    boolean validate,
    boolean events,
    Duration timeout)
{
    public static final String USAGE = String.join("\n",
        "usage: mlx5j pingpong [--ud] [options]          start a server and wait for a connection",
        "       mlx5j pingpong [--ud] [options] HOST     connect to a server at HOST",
        "  talks to an unmodified ibv_rc_pingpong (or ibv_ud_pingpong with --ud) on the other side",
        "      --ud                 UD transport, ibv_ud_pingpong's protocol (default RC, ibv_rc_pingpong's)",
        "  -p, --port PORT          listen on/connect to TCP port PORT (default 18515)",
        "  -d, --ib-dev NAME        use device NAME (default: the first device found)",
        "  -i, --ib-port PORT       use port PORT of the device (default 1)",
        "  -s, --size BYTES         size of the message to exchange (default 4096, UD 1024)",
        "  -m, --mtu BYTES          RC path MTU (default 1024)",
        "  -r, --rx-depth N         number of receives to post at a time (default 500)",
        "  -n, --iters N            number of exchanges (default 1000)",
        "  -l, --sl SL              service level (default 0)",
        "  -e, --events             sleep on CQ events (default poll)",
        "  -g, --gid-idx IDX        local port GID index (default: none, LID addressing)",
        "  -c, --chk                validate the received buffer (server)",
        "      --timeout SECONDS    TCP exchange timeout (default 60)");

    public static PingpongOptions parse(final String... argv)
    {
        final Args a = new Args(argv);
        boolean ud = false;
        String host = null;
        int tcpPort = 18515;
        String device = null;
        int ibPort = 1;
        int size = -1;
        int mtu = 1024;
        int rxDepth = 500;
        int iterations = 1000;
        int sl = 0;
        int gidIndex = -1;
        boolean validate = false;
        boolean events = false;
        long timeout = 60;
        while (a.hasNext())
        {
            final String o = a.nextToken();
            switch (o)
            {
                case "--ud" ->
                {
                    a.noValue(o);
                    ud = true;
                }
                case "--rc" -> a.noValue(o);
                case "-p", "--port" -> tcpPort = a.intValue(o, 1, 65535);
                case "-d", "--ib-dev", "--device" -> device = a.value(o);
                case "-i", "--ib-port" -> ibPort = a.intValue(o, 1, 255);
                case "-s", "--size" -> size = a.intValue(o, 1, 1 << 30);
                case "-m", "--mtu" -> mtu = a.intValue(o, 256, 4096);
                case "-r", "--rx-depth" -> rxDepth = a.intValue(o, 2, 1 << 15);
                case "-n", "--iters" -> iterations = a.intValue(o, 1, Integer.MAX_VALUE);
                case "-l", "--sl" -> sl = a.intValue(o, 0, 15);
                case "-g", "--gid-idx" -> gidIndex = a.intValue(o, 0, 255);
                case "-c", "--chk" ->
                {
                    a.noValue(o);
                    validate = true;
                }
                case "-e", "--events" ->
                {
                    a.noValue(o);
                    events = true;
                }
                case "--timeout" -> timeout = a.longValue(o, 1, 86_400);
                case "--emulated" -> a.noValue(o);
                default ->
                {
                    if (o.startsWith("-") || host != null)
                    {
                        throw new UsageException("unknown option or extra argument '" + o + "'");
                    }
                    host = o;
                }
            }
        }
        if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
        {
            throw new UsageException("--mtu is 256, 512, 1024, 2048 or 4096, not " + mtu);
        }
        if (size == -1)
        {
            // ud_pingpong's usage text says 2048, but its main() starts from 1024 (rdma-core v44 ud_pingpong.c);
            // peers with different sizes fail (the smaller receive gets a local length error), so use what it uses
            size = ud ? 1024 : 4096;
        }
        return new PingpongOptions(ud, host, tcpPort, device, ibPort, size, mtu, rxDepth, iterations, sl, gidIndex,
            validate, events, Duration.ofSeconds(timeout));
    }

    public boolean isServer()
    {
        return host == null;
    }
}
