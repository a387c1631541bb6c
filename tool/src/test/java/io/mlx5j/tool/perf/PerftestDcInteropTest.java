// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.tool.Capture;
import io.mlx5j.tool.Mlx5jTool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code mlx5j perf -c DC} against the unmodified perftest 4.5 programs with {@code -c DC}, both roles: perftest's
 * DC exchange (the DCT number only after connecting, the SRQ number in a target's destinations, a DCI and a DCT per
 * side in the latency tests) and its DC key. Each case is bounded; perftest must print its result row with the
 * iterations asked for, and mlx5j its own (or, as a bw server, the iterations it served). Before mlx5j had DC, every
 * case failed at the parse ("mlx5j perf runs RC QPs only").
 */
class PerftestDcInteropTest
{
    @ParameterizedTest(name = "{0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_bw,  -c DC -s 65536 -n 300, true",
        "write_bw,  -c DC -s 65536 -n 300, false",
        "write_bw,  -c DC -s 64 -n 500, true",
        "write_bw,  -c DC -s 64 -n 500, false",
        "read_bw,   -c DC -s 4096 -n 300, true",
        "read_bw,   -c DC -s 4096 -n 300, false",
        "send_bw,   -c DC -s 1024 -n 300, true",
        "send_bw,   -c DC -s 1024 -n 300, false",
        "write_lat, -c DC -s 2 -n 200, true",
        "write_lat, -c DC -s 2 -n 200, false",
        "write_lat, -c DC -s 1024 -n 100, true",
        "write_lat, -c DC -s 1024 -n 100, false",
        "send_lat,  -c DC -s 64 -n 200, true",
        "send_lat,  -c DC -s 64 -n 200, false",
        "read_lat,  -c DC -s 32 -n 200, true",
        "read_lat,  -c DC -s 32 -n 200, false",
        "atomic_bw, -c DC -n 300, true",
        "atomic_bw, -c DC -n 300, false",
        "atomic_lat, -c DC -n 200, true",
        "atomic_lat, -c DC -n 200, false",
    })
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void againstPerftest(final String test, final String args, final boolean javaServer) throws Exception
    {
        final String out = PerftestInterop.run(test, javaServer, List.of(), List.of(args.trim().split(" +")),
            List.of(args.trim().split(" +")));
        assertDc(out);
    }

    /** The same over RoCE (the surefire execution with an Ethernet link), GID index 1 (RoCE v2) on both sides. */
    @Tag("roce")
    @ParameterizedTest(name = "RoCE {0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_bw,  -c DC -x 1 -s 8192 -n 300, true",
        "write_bw,  -c DC -x 1 -s 8192 -n 300, false",
        "read_bw,   -c DC -x 1 -s 2048 -n 300, true",
        "read_bw,   -c DC -x 1 -s 2048 -n 300, false",
        "send_bw,   -c DC -x 1 -s 1024 -n 300, true",
        "send_bw,   -c DC -x 1 -s 1024 -n 300, false",
        "write_lat, -c DC -x 1 -s 2 -n 100, true",
        "write_lat, -c DC -x 1 -s 2 -n 100, false",
    })
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void againstPerftestOverRoce(final String test, final String args, final boolean javaServer) throws Exception
    {
        final String out = PerftestInterop.run(test, javaServer, List.of(), List.of(args.trim().split(" +")),
            List.of(args.trim().split(" +")));
        assertDc(out);
    }

    /** Two mlx5j sides over DC check the data that moved (mlx5j's patterns), as two RC sides do. */
    @ParameterizedTest(name = "mlx5j to mlx5j {0} {1}")
    @CsvSource({
        "write_bw,  -s 4096 -n 200",
        "send_bw,   -s 512 -n 200",
        "read_bw,   -s 1024 -n 200",
        "write_lat, -s 64 -n 200 --warmup 0",
        "send_lat,  -s 64 -n 200 --warmup 0",
    })
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void mlx5jToMlx5j(final String test, final String args) throws Exception
    {
        final int port = io.mlx5j.testkit.EmulatedDevice.freeTcpPort();
        final List<String> common = new java.util.ArrayList<>(List.of("perf", test, "-c", "DC", "-p", "" + port,
            "--no-progress", "--timeout", "60"));
        common.addAll(List.of(args.trim().split(" +")));
        final Capture server = new Capture();
        final java.util.concurrent.CompletableFuture<Integer> s = java.util.concurrent.CompletableFuture.supplyAsync(
            () -> Mlx5jTool.run(common.toArray(String[]::new), server.stream, server.stream));
        server.awaitContains("waiting for a client", 60);
        final List<String> clientArgs = new java.util.ArrayList<>(common);
        clientArgs.add("localhost");
        final Capture client = new Capture();
        final int c = Mlx5jTool.run(clientArgs.toArray(String[]::new), client.stream, client.stream);
        final int sv = s.get(120, TimeUnit.SECONDS);
        assertEquals(0, c, client.text() + "\n--- server:\n" + server.text());
        assertEquals(0, sv, server.text());
        assertDc(client.text());
        assertDc(server.text());
        // the data checks against mlx5j's patterns (a failed one ends the run with status 1): the receiver's in a
        // bw test (the sender has nothing to check but for READs), both sides' in a latency test
        if (test.endsWith("_lat"))
        {
            assertTrue(client.text().contains(" 200 samples") || client.text().contains(" 199 samples"),
                client.text());
            assertTrue(client.text().lines().anyMatch(l -> l.contains("data check: ") && l.contains(" bytes ok")),
                client.text());
            assertTrue(server.text().lines().anyMatch(l -> l.contains("data check: ") && l.contains(" bytes ok")),
                server.text());
        }
        else
        {
            assertTrue(client.text().lines().anyMatch(l -> l.matches(" [0-9]+ +200 .*")), client.text());
            assertTrue(server.text().lines().anyMatch(l -> l.startsWith(" 200 iterations served; data check: ")
                && (test.equals("read_bw") || l.endsWith(" bytes ok"))), server.text());
            if (test.equals("read_bw"))
            {
                assertTrue(client.text().contains(" data check: READ data 1024 bytes ok"), client.text());
            }
        }
    }

    /** -c DC where perftest would refuse it, or mlx5j does not run it: a usage error naming the reason. */
    @Test
    void refusesWhatDcDoesNotRun()
    {
        assertUsage("not with -R", "perf", "write_bw", "-c", "DC", "-R", "localhost");
        assertUsage("one DCI / DCT per side", "perf", "write_bw", "-c", "DC", "-q", "2", "localhost");
        assertUsage("not --loopback", "perf", "write_bw", "-c", "DC", "--loopback");
        assertUsage("mlx5j perf runs RC, XRC and DC QPs", "perf", "write_bw", "-c", "UD", "localhost");
    }

    private static void assertUsage(final String expected, final String... args)
    {
        final Capture c = new Capture();
        final int status = Mlx5jTool.run(args, c.stream, c.stream);
        assertEquals(2, status, c.text());
        assertTrue(c.text().contains(expected), c.text());
    }

    private static void assertDc(final String out)
    {
        assertTrue(out.contains(" Connection     : DC, "), out);
    }
}
