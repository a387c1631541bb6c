// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.pingpong;

import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.tool.Capture;
import io.mlx5j.tool.Mlx5jTool;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interop with the unmodified rdma-core examples (Debian's ibverbs-utils, rdma-core 44) on the emulated device:
 * mlx5j's pingpong (Java direct path for every post and poll, io.mlx5j.tool.oob for the exchange) as client against
 * an {@code ibv_rc_pingpong} / {@code ibv_ud_pingpong} server, and as server against their client. Both sides must
 * exit 0 and print each other's QPN and PSN; {@code -c} makes the server check the data it received; the examples run
 * with the emulator's strict mode inherited from this JVM, and neither process may break a driver rule.
 */
class PingpongInteropTest
{
    private static final int ITERATIONS = 20;
    private static final long CHILD_SECONDS = 120;
    private static final Pattern LOCAL = Pattern.compile(
        "  local address:  LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6})[,:] GID (\\S+)");
    private static final Pattern REMOTE = Pattern.compile(
        "  remote address: LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\\S+)");

    @Test
    void mlx5jClientAgainstIbvRcPingpongServer() throws Exception
    {
        javaClientAgainstCServer("ibv_rc_pingpong", false, 4096);
    }

    @Test
    void ibvRcPingpongClientAgainstMlx5jServer() throws Exception
    {
        cClientAgainstJavaServer("ibv_rc_pingpong", false, 4096);
    }

    @Test
    void mlx5jClientAgainstIbvUdPingpongServer() throws Exception
    {
        javaClientAgainstCServer("ibv_ud_pingpong", true, 1024);
    }

    @Test
    void ibvUdPingpongClientAgainstMlx5jServer() throws Exception
    {
        cClientAgainstJavaServer("ibv_ud_pingpong", true, 1024);
    }

    /** -e on both sides: the Java side arms its CQ with the arm doorbell and sleeps on the completion channel. */
    @Test
    void eventModeAgainstIbvRcPingpongServerInEventMode() throws Exception
    {
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final ChildProcess c = new ChildProcess("rc-events-server", command("ibv_rc_pingpong", "-p", port, "-n",
            ITERATIONS, "-e", "-c"));
        final Capture client = new Capture();
        final int status = Mlx5jTool.run(args("pingpong", "-e", "-p", port, "-n", ITERATIONS, "-c", "--timeout", 20,
            "localhost"), client.stream, client.stream);
        if (status != 0)
        {
            c.kill();
        }
        final ChildProcess.Result server = c.await(CHILD_SECONDS);
        server.assertClean("ibv_rc_pingpong -e server", client.text());
        assertEquals(0, status, client.text());
        assertCrossed(server.lines(), client.text().lines().toList(), 4096, ITERATIONS);
        assertEquals(before, EmulatedDevice.strictViolations());
    }

    /** Non-default size and a small receive depth, so the receive queue is topped up many times. */
    @Test
    void rcWithSmallMessagesAndShallowReceiveQueue() throws Exception
    {
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final Capture server = new Capture();
        final CompletableFuture<Integer> java = CompletableFuture.supplyAsync(() -> Mlx5jTool.run(
            args("pingpong", "-p", port, "-n", 60, "-s", 100, "-r", 4, "-c", "--timeout", 20), server.stream,
            server.stream));
        server.awaitContains("local address:", 60);
        final ChildProcess.Result c = new ChildProcess("rc-small-client", command("ibv_rc_pingpong", "-p", port, "-n",
            60, "-s", 100, "-r", 4, "-c", "localhost")).await(CHILD_SECONDS);
        c.assertClean("ibv_rc_pingpong client", server.text());
        assertEquals(0, java.get(CHILD_SECONDS, TimeUnit.SECONDS), server.text());
        assertCrossed(c.lines(), server.text().lines().toList(), 100, 60);
        assertEquals(before, EmulatedDevice.strictViolations());
    }

    private void javaClientAgainstCServer(final String example, final boolean ud, final int size) throws Exception
    {
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final ChildProcess c = new ChildProcess(example + "-server", command(example, "-p", port, "-n",
            ITERATIONS, "-c"));
        final Capture client = new Capture();
        final List<String> argv = new ArrayList<>(List.of("pingpong", "-p", "" + port, "-n", "" + ITERATIONS, "-c",
            "--timeout", "20"));
        if (ud)
        {
            argv.add("--ud");
        }
        argv.add("localhost"); // the client retries until the example's server listens
        final int status;
        try
        {
            status = Mlx5jTool.run(argv.toArray(String[]::new), client.stream, client.stream);
        }
        catch (final RuntimeException | Error ex)
        {
            c.kill(); // it would wait for a client forever
            throw ex;
        }
        if (status != 0)
        {
            c.kill(); // our side gave up: the example's server may wait forever; its output still shows why
        }
        final ChildProcess.Result server = c.await(CHILD_SECONDS);
        server.assertClean(example + " server", client.text());
        assertEquals(0, status, client.text());
        assertCrossed(server.lines(), client.text().lines().toList(), size, ITERATIONS);
        assertEquals(before, EmulatedDevice.strictViolations(), "strict-mode violations in this JVM");
    }

    private void cClientAgainstJavaServer(final String example, final boolean ud, final int size) throws Exception
    {
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final Capture server = new Capture();
        final List<String> argv = new ArrayList<>(List.of("pingpong", "-p", "" + port, "-n", "" + ITERATIONS, "-c",
            "--timeout", "20"));
        if (ud)
        {
            argv.add("--ud");
        }
        final CompletableFuture<Integer> java = CompletableFuture.supplyAsync(
            () -> Mlx5jTool.run(argv.toArray(String[]::new), server.stream, server.stream));
        // the Java server listens before it prints its address line (the C client tries to connect only once)
        server.awaitContains("local address:", 60);
        final ChildProcess.Result c = new ChildProcess(example + "-client", command(example, "-p", port, "-n",
            ITERATIONS, "-c", "localhost")).await(CHILD_SECONDS);
        c.assertClean(example + " client", server.text());
        assertEquals(0, java.get(CHILD_SECONDS, TimeUnit.SECONDS), server.text());
        assertCrossed(c.lines(), server.text().lines().toList(), size, ITERATIONS);
        assertEquals(before, EmulatedDevice.strictViolations(), "strict-mode violations in this JVM");
    }

    /**
     * Each side printed the other's QPN and PSN as its remote address, both moved size * iterations * 2 bytes in
     * {@code iterations} iterations, and neither (the servers run with -c) found invalid data.
     */
    private static void assertCrossed(final List<String> c, final List<String> java, final int size,
        final int iterations)
    {
        final Matcher cLocal = find(LOCAL, c);
        final Matcher cRemote = find(REMOTE, c);
        final Matcher jLocal = find(LOCAL, java);
        final Matcher jRemote = find(REMOTE, java);
        for (int g = 1; g <= 4; g++)
        {
            assertEquals(cLocal.group(g), jRemote.group(g), "C local vs mlx5j remote, field " + g);
            assertEquals(jLocal.group(g), cRemote.group(g), "mlx5j local vs C remote, field " + g);
        }
        assertTrue(!cLocal.group(2).equals(jLocal.group(2)), "two different QPs");
        final String bytes = (long) size * iterations * 2 + " bytes in ";
        final String iters = iterations + " iters in ";
        for (final List<String> side : List.of(c, java))
        {
            assertTrue(side.stream().anyMatch(l -> l.startsWith(bytes) && l.endsWith(" Mbit/sec")), bytes + side);
            assertTrue(side.stream().anyMatch(l -> l.startsWith(iters) && l.endsWith(" usec/iter")), iters + side);
            assertFalse(side.stream().anyMatch(l -> l.contains("invalid data")), side.toString());
        }
    }

    private static Matcher find(final Pattern p, final List<String> lines)
    {
        for (final String l : lines)
        {
            final Matcher m = p.matcher(l);
            if (m.matches())
            {
                return m;
            }
        }
        throw new AssertionError("no line matching " + p + " in\n" + String.join("\n", lines));
    }

    private static List<String> command(final String example, final Object... args)
    {
        final List<String> command = new ArrayList<>(List.of("/usr/bin/" + example));
        for (final Object a : args)
        {
            command.add(String.valueOf(a));
        }
        return command;
    }

    private static String[] args(final Object... args)
    {
        final String[] s = new String[args.length];
        for (int i = 0; i < args.length; i++)
        {
            s[i] = String.valueOf(args[i]);
        }
        return s;
    }
}
