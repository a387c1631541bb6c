// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.tool.perf.report.ResultTable;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tool end to end in this JVM, on the emulated device (strict mode on): devices, every perf test in loopback,
 * and a server/client pair over the TCP exchange. Checks the table's shape, that every iteration completed, that
 * the data check passed, and that no driver rule was broken. The numbers themselves depend on the machine.
 */
class Mlx5jToolTest
{
    @Test
    void devicesListsTheEmulatedDevice()
    {
        final Capture out = new Capture();
        assertEquals(0, Mlx5jTool.run(new String[] {"devices"}, out.stream, out.stream), out.text());
        final List<String> lines = out.text().lines().toList();
        assertEquals("mlx5j: 1 device (emulated ConnectX-5 through emulator/mlx5emu; no RDMA hardware in use)",
            lines.get(0));
        assertEquals("mlx5_0", lines.get(1));
        // emulator/mlx5emu writes node GUID 98:03:9b (Mellanox OUI), 4d:45, then the device index
        assertEquals("    node GUID      9803:9b03:004d:4500", lines.get(2));
        assertTrue(lines.get(3).startsWith("    driver         mlx5 "), lines.get(3));
        assertEquals("    port 1         ACTIVE, InfiniBand, LID 0x0001, MTU 4096", lines.get(4));
        assertEquals("        GID[  0]  fe80:0000:0000:0000:9803:9b03:004d:4500", lines.get(5));
    }

    @Test
    void unknownDeviceAndBadOptionsAreUsageErrors()
    {
        final Capture out = new Capture();
        assertEquals(2, Mlx5jTool.run(new String[] {"devices", "-d", "mlx5_9"}, out.stream, out.stream));
        assertTrue(out.text().contains("no device named 'mlx5_9'; devices: [mlx5_0]"), out.text());
        assertEquals(2, Mlx5jTool.run(new String[] {"perf", "write_lat", "-s", "x"}, out.stream, out.stream));
        assertTrue(out.text().contains("option -s needs a number"), out.text());
        assertEquals(2, Mlx5jTool.run(new String[] {"frobnicate"}, out.stream, out.stream));
        assertEquals(1, Mlx5jTool.run(new String[] {"perf", "write_lat", "-d", "mlx5_7", "-n", "10"}, out.stream,
            out.stream));
        assertTrue(out.text().contains("perf failed"), out.text());
    }

    /** BlueFlame: every post's copy is checked against the ring by the emulator's strict mode. */
    @Test
    void writeLatLoopbackThousandIterations()
    {
        final long before = EmulatedDevice.strictViolations();
        final List<String> out = perf("write_lat", "-n", "1000", "--doorbell", "blueflame");
        assertEquals(before, EmulatedDevice.strictViolations());
        assertTrue(out.contains(" ".repeat(20) + "RDMA_Write Latency Test (mlx5j Java direct path)"), out.toString());
        // a context's first QPs get low-latency BlueFlame registers: no lock (RegisterMode.DEDICATED)
        assertTrue(out.contains(" Path MTU       : 4096     Doorbell : blueflame     BlueFlame register : dedicated"),
            out.toString());
        assertTrue(out.contains(" Connection     : RC, loopback: both QPs in this process, one thread"),
            out.toString());
        final double[] row = latencyRow(out, 2, 1000);
        assertTrue(out.contains(" 1000 samples (round trip / 2); data check: reply 1 bytes ok; message 1 bytes ok"),
            out.toString());
        assertTrue(row[2] > 0, "t_min is positive");
    }

    /**
     * {@code --warmup N} with {@code --loopback}: the warm-up runs (the run's own loops, one thread, on a private QP
     * pair) and says so on stderr, before the run's table; without the option a loopback run has none. Every test
     * kind: write_lat and send_lat with their answering side on the same thread, read_lat one-sided.
     */
    @Test
    void loopbackRunsTheWarmupItIsAskedFor()
    {
        for (final String test : List.of("write_lat", "send_lat", "read_lat"))
        {
            final long before = EmulatedDevice.strictViolations();
            final Capture out = new Capture();
            final Capture err = new Capture();
            assertEquals(0, Mlx5jTool.run(new String[] {"perf", test, "--loopback", "-n", "200", "--warmup", "1500",
                "--no-progress"}, out.stream, err.stream), out.text() + err.text());
            assertTrue(err.text().startsWith("mlx5j: JIT warm-up: 1500 iterations on a private QP pair in "),
                test + ": " + err.text());
            assertEquals(1, err.text().lines().count(), err.text());
            latencyRow(out.text().lines().toList(), 2, 200);
            assertEquals(before, EmulatedDevice.strictViolations(), "strict-mode violations during " + test);
        }
        // the default in loopback is none: perf() asserts an empty stderr
        latencyRow(perf("write_lat", "-n", "200"), 2, 200);
    }

    /** BlueFlame, as {@link #writeLatLoopbackThousandIterations()}. */
    @Test
    void everyLatencyTestInLoopback()
    {
        final long before = EmulatedDevice.strictViolations();
        latencyRow(perf("send_lat", "-n", "300", "-s", "64", "--doorbell", "blueflame"), 64, 300);
        // not inline: DMA
        latencyRow(perf("write_lat", "-n", "300", "-s", "4096", "--doorbell", "blueflame"), 4096, 300);
        final List<String> read = perf("read_lat", "-n", "300", "-s", "32", "--doorbell", "blueflame");
        latencyRow(read, 32, 300);
        // the run ends with the port's counters, which saw at least the 300 READs (the fabric's counters accumulate)
        assertTrue(read.contains("port counters of mlx5_0 port 1 (sysfs counters/ and hw_counters/):"),
            read.toString());
        assertTrue(read.stream().anyMatch(l -> l.matches("  rx_read_requests +\\d+")
            && Long.parseLong(l.strip().split(" +")[1]) >= 300), read.toString());
        final List<String> atomic = perf("atomic_lat", "-n", "300", "--doorbell", "blueflame");
        assertEquals(before, EmulatedDevice.strictViolations());
        latencyRow(atomic, 8, 300);
        assertTrue(atomic.contains(" 300 samples; data check: last FETCH_ADD returned 299; counter 300"),
            atomic.toString());
    }

    /**
     * BlueFlame, with the emulator's strict check of every copy against the ring. (These tests used the 8-byte
     * doorbell while the engine could misjudge a copy whose later stores landed after it had taken the doorbell word;
     * the engine now re-checks such a copy against the WQE it announced: emulator commits 3f64329 and 5c00b85.)
     */
    @Test
    void everyBandwidthTestInLoopback()
    {
        for (final String test : List.of("write_bw", "read_bw", "send_bw"))
        {
            final long before = EmulatedDevice.strictViolations();
            final List<String> out = perf(test, "-n", "500", "-s", "8192", "-t", "32", "-Q", "8", "--doorbell",
                "blueflame");
            assertEquals(before, EmulatedDevice.strictViolations(), test);
            assertTrue(out.contains(" TX depth       : 32     CQ moderation : 8"), out.toString());
            final int h = out.indexOf(ResultTable.bandwidthHeader());
            assertTrue(h > 0, out.toString());
            final String[] f = out.get(h + 1).trim().split("\\s+");
            assertEquals(5, f.length, out.get(h + 1));
            assertEquals("8192", f[0]);
            assertEquals("500", f[1]);
            final double peak = Double.parseDouble(f[2]);
            final double mb = Double.parseDouble(f[3]);
            final double mpps = Double.parseDouble(f[4]);
            assertTrue(mb > 0, out.get(h + 1));
            // the whole run is one of the peak's windows: the peak is at least the average
            assertTrue(peak >= mb - 0.01, out.get(h + 1));
            // both columns come from one elapsed time: MB/s = Mpps * 10^6 * size / 2^20 (to their rounding)
            assertEquals(mpps * 1e6 * 8192 / (1 << 20), mb, mb * 0.01 + 0.01, out.get(h + 1));
            assertTrue(out.get(h + 3).contains("data check: ") && out.get(h + 3).contains("8192 bytes ok"),
                out.get(h + 3));
        }
    }

    @Test
    void serverAndClientOverTheTcpExchange() throws Exception
    {
        final int port = EmulatedDevice.freeTcpPort();
        for (final String test : List.of("write_lat", "read_bw"))
        {
            final long before = EmulatedDevice.strictViolations();
            final Capture server = new Capture();
            final CompletableFuture<Integer> s = CompletableFuture.supplyAsync(() -> Mlx5jTool.run(new String[] {
                "perf", test, "--server", "-p", "" + port, "-n", "200", "--timeout", "60", "--doorbell", "doorbell"},
                server.stream, server.stream));
            server.awaitContains("waiting for a client", 60);
            final Capture client = new Capture();
            assertEquals(0, Mlx5jTool.run(new String[] {"perf", test, "--client", "localhost", "-p", "" + port, "-n",
                "200", "--timeout", "60", "--doorbell", "doorbell"}, client.stream, client.stream), client.text());
            assertEquals(0, s.get(120, TimeUnit.SECONDS), server.text());
            final List<String> c = client.text().lines().toList();
            if (test.equals("write_lat"))
            {
                // perftest 6.06's write_lat: the server writes first, the client answers; both measure
                latencyRow(server.text().lines().toList(), 2, 200);
                latencyRow(c, 2, 200);
                assertTrue(c.stream().anyMatch(l -> l.contains(" 199 samples (round trip / 2); data check: message "
                    + "1 bytes ok")), client.text());
                assertTrue(server.text().contains("data check: reply 1 bytes ok"), server.text());
            }
            else
            {
                assertTrue(c.stream().anyMatch(l -> l.startsWith(" 65536        200 ")), client.text());
                assertTrue(client.text().contains("data check: READ data 65536 bytes ok"), client.text());
                assertTrue(server.text().contains(" 200 iterations served; data check: READ source"), server.text());
            }
            assertTrue(client.text().contains(" Connection     : RC, client of localhost:" + port), client.text());
            assertTrue(server.text().contains(" Connection     : RC, server, client "), server.text());
            assertEquals(before, EmulatedDevice.strictViolations());
        }
    }

    /** Two processes, as on two hosts: the server is a second JVM on the same emulated fabric. */
    @Test
    void sendBwAgainstAServerInAnotherProcess() throws Exception
    {
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final ChildProcess server = new ChildProcess("perf-send-bw-server", List.of(java,
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            Mlx5jTool.class.getName(), "perf", "send_bw", "--server", "-p", "" + port, "-n", "300", "-s", "4096",
            "--doorbell", "doorbell", "--timeout", "60"));
        final Capture client = new Capture();
        final int status = Mlx5jTool.run(new String[] {"perf", "send_bw", "--client", "localhost", "-p", "" + port,
            "-n", "300", "-s", "4096", "--doorbell", "doorbell", "--timeout", "60"}, client.stream, client.stream);
        if (status != 0)
        {
            server.kill();
        }
        final ChildProcess.Result s = server.await(120);
        s.assertClean("perf send_bw --server", client.text());
        assertEquals(0, status, client.text());
        assertTrue(client.text().lines().anyMatch(l -> l.startsWith(" 4096         300 ")), client.text());
        assertTrue(s.out().contains(" 300 iterations served; data check: message 4096 bytes ok"), s.out());
        assertEquals(before, EmulatedDevice.strictViolations());
    }

    private static List<String> perf(final String... args)
    {
        final long before = EmulatedDevice.strictViolations();
        final String[] argv = new String[args.length + 3];
        argv[0] = "perf";
        System.arraycopy(args, 0, argv, 1, args.length);
        argv[argv.length - 2] = "--loopback";
        argv[argv.length - 1] = "--no-progress";
        final Capture out = new Capture();
        final Capture err = new Capture();
        assertEquals(0, Mlx5jTool.run(argv, out.stream, err.stream), out.text() + err.text());
        assertEquals("", err.text(), "nothing on stderr without progress");
        assertEquals(before, EmulatedDevice.strictViolations(),
            "strict-mode violations during " + String.join(" ", args));
        return out.text().lines().toList();
    }

    /** The latency table: header, one row with the size and iterations, numbers ordered as statistics must be. */
    private static double[] latencyRow(final List<String> out, final int size, final int iterations)
    {
        final int h = out.indexOf(ResultTable.latencyHeader());
        assertTrue(h > 0, "no latency header in\n" + String.join("\n", out));
        assertEquals(ResultTable.LINE, out.get(h - 1));
        final String[] f = out.get(h + 1).trim().split("\\s+");
        assertEquals(9, f.length, out.get(h + 1));
        assertEquals(Integer.toString(size), f[0]);
        assertEquals(Integer.toString(iterations), f[1]);
        final double[] v = new double[9];
        for (int i = 0; i < 9; i++)
        {
            v[i] = Double.parseDouble(f[i]);
        }
        final double min = v[2];
        final double max = v[3];
        final double typical = v[4];
        final double avg = v[5];
        final double p99 = v[7];
        final double p999 = v[8];
        assertTrue(min <= typical && typical <= p99 && p99 <= p999 && p999 <= max, out.get(h + 1));
        assertTrue(min <= avg && avg <= max, out.get(h + 1));
        assertEquals(ResultTable.LINE, out.get(h + 2));
        return v;
    }
}
