// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.tool.Capture;
import io.mlx5j.tool.Mlx5jTool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code mlx5j perf} against the unmodified perftest 4.5 programs over InfiniBand, every test in both roles, with
 * sizes that do and do not go inline, one that makes a perftest bw client walk the target (a message of at most
 * half a page), and perftest options mlx5j accepts and ignores.
 */
class PerftestInteropTest
{
    @ParameterizedTest(name = "{0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -s 2 -n 200, true",
        "write_lat, -s 2 -n 200, false",
        "write_lat, -s 1024 -n 100 -I 0, true",
        "write_lat, -s 1024 -n 100 -I 0, false",
        "send_lat,  -s 64 -n 300, true",
        "send_lat,  -s 64 -n 300, false",
        "send_lat,  -s 4096 -n 100, true",
        "send_lat,  -s 4096 -n 100 -F, false",
        "read_lat,  -s 32 -n 300, true",
        "read_lat,  -s 32 -n 300, false",
        "atomic_lat, -n 300, true",
        "atomic_lat, -n 300, false",
        "write_bw,  -s 65536 -n 300, true",
        "write_bw,  -s 65536 -n 300 --report_gbits, false",
        "write_bw,  -s 64 -n 500 -N, true",
        "write_bw,  -s 64 -n 500, false",
        "send_bw,   -s 4096 -n 300, true",
        "send_bw,   -s 4096 -n 300 --use_old_post_send, false",
        "read_bw,   -s 8 -n 500, true",
        "read_bw,   -s 16384 -n 300, false",
        "atomic_bw, -n 500, true",
        "atomic_bw, -n 500, false",
    })
    void againstPerftest(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }

    /**
     * perftest's -a (all sizes 2 .. 2^23, with each test's exchanges between sizes), -D (duration: warm-up, sample,
     * cool-down) and the BW peak column, against the perftest binaries in both roles (5 iterations, perftest's least:
     * 23 sizes).
     */
    @ParameterizedTest(name = "{0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -a -n 5, true",
        "send_lat,  -a -n 5, false",
        "send_bw,   -a -n 5, true",
        "read_bw,   -a -n 5, false",
        "write_lat, -D 3, false",
        "send_bw,   -D 3, true",
        "write_bw,  -D 3, false",
        "read_lat,  -D 3, true",
    })
    void sweepsAndDurations(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }

    /**
     * write_lat has no closing exchange, so mlx5j's QP must outlive the perftest peer's run: mlx5j's duration run
     * here ends 2 s before perftest's while perftest's next WRITE is still on the wire (perftest's emulator holds
     * each request it sends for 50 ms), and perftest polls that WRITE's completion, which only mlx5j's QP can give.
     * A side that destroys its QP at the end of its own run fails perftest with RETRY_EXC_ERR (CI met it once
     * without the delay, the two sides' equal durations ending a few milliseconds apart).
     */
    @ParameterizedTest(name = "write_lat -D, mlx5j ends first, mlx5j server {0}")
    @CsvSource({"false", "true"})
    void writeLatPeerOutlivesOurDuration(final boolean javaServer) throws Exception
    {
        PerftestInterop.run("write_lat", javaServer, List.of("env", "MLX5EMU_FAULTS=delay=1:50ms,dir=req"),
            List.of("-D", "3"), List.of("-D", "1"));
    }

    /**
     * The mirror case: perftest leaves first while mlx5j's last WRITE waits for its ACK. perftest's emulator drops
     * every response it sends, so mlx5j's first WRITE (its answer to perftest's) is never acknowledged, although
     * perftest sees its data and writes again; perftest's run (-D 2) ends a second before mlx5j's (-D 3), and with
     * -u 17 (537 ms per try, 8 tries) the WRITE completes with RETRY_EXC_ERR only after mlx5j's own run ended.
     * mlx5j excuses it because the peer has ended, and says so (it failed the run before).
     */
    @Test
    void writeLatPeerEndsFirst() throws Exception
    {
        final String out = PerftestInterop.run("write_lat", false, List.of("env", "MLX5EMU_FAULTS=drop=1,dir=resp"),
            List.of("-D", "2"), List.of("-D", "3", "-u", "17"));
        assertTrue(out.contains("mlx5j: the peer ended its run before acknowledging our last RDMA WRITE"), out);
        assertTrue(out.contains("transport retry counter exceeded") || out.contains("RETRY_EXC"), out);
    }

    /**
     * A perftest user's two command lines, each in a process of its own: {@code mlx5j perf write_lat -p PORT -n 200}
     * names no host, so it is perftest's server and waits (it printed an in-process loopback run and exited before),
     * and the unmodified {@code ib_write_lat -p PORT -n 200 localhost} completes against it. {@code --loopback} still
     * runs both QPs in one process.
     */
    @Test
    void noHostMakesTheServerAsInPerftest() throws Exception
    {
        final int port = EmulatedDevice.freeTcpPort();
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final String name = "write_lat-no-host-" + port;
        final ChildProcess mlx5j = new ChildProcess(name, List.of(java, "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), Mlx5jTool.class.getName(), "perf", "write_lat", "-p",
            "" + port, "-n", "200", "--no-progress"));
        final Path out = Path.of("target", "interop", name + ".out");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(out) || !Files.readString(out).contains("waiting for a client"))
        {
            if (System.nanoTime() > deadline)
            {
                mlx5j.kill();
                fail("mlx5j perf write_lat -p " + port + " did not wait for a client:\n"
                    + (Files.exists(out) ? Files.readString(out) : ""));
            }
            Thread.sleep(20);
        }
        final ChildProcess.Result client = new ChildProcess("ib_write_lat-client-" + port, List.of("ib_write_lat",
            "-p", "" + port, "-n", "200", "localhost")).await(120);
        final ChildProcess.Result server = mlx5j.await(120);
        client.assertClean("ib_write_lat -p " + port + " -n 200 localhost", server.out() + server.err());
        server.assertClean("mlx5j perf write_lat -p " + port + " -n 200", client.out());
        assertTrue(server.out().contains("mlx5j: waiting for a client (perftest or mlx5j) on TCP port " + port),
            server.out());
        assertTrue(server.out().contains(" Connection     : RC, server, client "), server.out());
        assertTrue(server.out().contains("peer perftest 6.06"), server.out());
        assertTrue(server.lines().stream().anyMatch(l -> l.matches(" 2 +200 .*")), server.out());
        assertTrue(client.lines().stream().anyMatch(l -> l.matches(" 2 +200 .*")), client.out());

        final Capture loopback = new Capture();
        assertEquals(0, Mlx5jTool.run(new String[] {"perf", "write_lat", "--loopback", "-n", "200", "--no-progress"},
            loopback.stream, loopback.stream), loopback.text());
        assertTrue(loopback.text().contains(" Connection     : RC, loopback: both QPs in this process, one thread"),
            loopback.text());
        assertTrue(loopback.text().contains(" 200 samples (round trip / 2); data check: reply 1 bytes ok; message 1 "
            + "bytes ok"), loopback.text());
    }

    /** The same over RoCE (the surefire execution with an Ethernet link): both sides use GID index 1 (RoCE v2). */
    @Tag("roce")
    @ParameterizedTest(name = "RoCE {0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -x 1 -s 2 -n 100, true",
        "write_lat, -x 1 -s 2 -n 100, false",
        "send_lat,  -x 1 -s 128 -n 200, true",
        "send_lat,  -x 1 -s 128 -n 200, false",
        "read_lat,  -x 1 -s 64 -n 200, true",
        "read_lat,  -x 1 -s 64 -n 200, false",
        "atomic_lat, -x 1 -n 200, true",
        "atomic_lat, -x 1 -n 200, false",
        "write_bw,  -x 1 -s 8192 -n 300, true",
        "write_bw,  -x 1 -s 8192 -n 300, false",
        "send_bw,   -x 1 -s 1024 -n 300, true",
        "send_bw,   -x 1 -s 1024 -n 300, false",
        "read_bw,   -x 1 -s 2048 -n 300, true",
        "read_bw,   -x 1 -s 2048 -n 300, false",
        "atomic_bw, -x 1 -n 300, true",
        "atomic_bw, -x 1 -n 300, false",
    })
    void againstPerftestOverRoce(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }
}
