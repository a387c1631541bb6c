// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.tool.Capture;
import io.mlx5j.tool.Mlx5jTool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One {@code mlx5j perf} run against the unmodified perftest program of the same test (ib_write_lat ...), in either
 * role, on the emulated device this JVM's surefire execution provides (the child joins its fabric). Both sides get
 * perftest's command line: the server none but the options, the client the server's host last. Both sides must
 * exit 0, print their result row (perftest's own columns on its side), and cause no strict-mode report.
 */
final class PerftestInterop
{
    private PerftestInterop()
    {
    }

    /**
     * @param javaServer true: mlx5j waits, perftest connects; false: perftest waits, mlx5j connects
     * @param args       the options both sides get (perftest's command line, which mlx5j accepts)
     */
    static void run(final String test, final boolean javaServer, final List<String> args) throws Exception
    {
        run(test, javaServer, List.of(), args, args);
    }

    /**
     * {@link #run(String, boolean, List)} with options that differ between the sides; {@code perftestPrefix} comes
     * before perftest's command (an {@code env} that sets its emulator's knobs). Returns what mlx5j printed.
     */
    static String run(final String test, final boolean javaServer, final List<String> perftestPrefix,
        final List<String> perftestArgs, final List<String> mlx5jArgs) throws Exception
    {
        final List<String> args = perftestArgs;
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final List<String> perftest = new ArrayList<>(perftestPrefix);
        perftest.addAll(List.of("ib_" + test, "-p", "" + port));
        perftest.addAll(perftestArgs);
        final List<String> mlx5j = new ArrayList<>(List.of("perf", test, "-p", "" + port, "--no-progress",
            "--timeout", "60"));
        mlx5j.addAll(mlx5jArgs);
        final Capture java = new Capture();
        final String what = (javaServer ? "mlx5j server, ib_" : "ib_") + test + (javaServer ? " client " : " server ")
            + String.join(" ", args);
        final ChildProcess.Result peer;
        final int status;
        if (javaServer)
        {
            // no host: perftest's server (mlx5j perf write_lat -p PORT waits as ib_write_lat -p PORT does)
            final CompletableFuture<Integer> s = CompletableFuture.supplyAsync(
                () -> Mlx5jTool.run(mlx5j.toArray(String[]::new), java.stream, java.stream));
            java.awaitContains("waiting for a client", 60);
            perftest.add("localhost");
            peer = new ChildProcess(test + "-client-" + port, perftest).await(120);
            status = s.get(120, TimeUnit.SECONDS);
        }
        else
        {
            final ChildProcess child = new ChildProcess(test + "-server-" + port, perftest);
            mlx5j.add("localhost");     // perftest's positional server host
            status = Mlx5jTool.run(mlx5j.toArray(String[]::new), java.stream, java.stream);
            if (status != 0)
            {
                child.kill();
            }
            peer = child.await(120);
        }
        peer.assertClean(what, java.text());
        assertEquals(0, status, what + ", the mlx5j side:\n" + java.text() + "\n--- perftest:\n" + peer.out());
        // -a: a row per size (a perftest bw server prints only its client's last)
        final String size = args.contains("-a") ? "[0-9]+" : args.contains("-s") ? args.get(args.indexOf("-s") + 1)
            : test.startsWith("atomic") ? "8" : test.endsWith("_lat") ? "2" : "65536";
        // a duration run (-D) counts its own iterations
        // with -q N every QP runs -n messages, and #iterations counts them all (perftest's tot_iters)
        final long qps = args.contains("-q") ? Long.parseLong(args.get(args.indexOf("-q") + 1)) : 1;
        final String iters = args.contains("-n") ? "" + Long.parseLong(args.get(args.indexOf("-n") + 1)) * qps
            : "[0-9]+";
        // perftest's result row: its columns, then " SIZE ITERS ..." (a server of a bw test prints the client's)
        // every perftest side prints a row, but the server of read_lat / atomic_lat (it only waits); the server of a
        // bw test prints its client's report
        final boolean perftestServerWaitsOnly = !javaServer && (test.equals("read_lat") || test.equals("atomic_lat"));
        if (!perftestServerWaitsOnly)
        {
            assertTrue(peer.out().contains("#bytes") && peer.lines().stream().anyMatch(
                l -> l.matches(" " + size + " +" + iters + " .*")), what + ": no perftest result row\n" + peer.out());
        }
        assertTrue(java.text().contains("peer perftest 6.06"), what + ":\n" + java.text());
        // a latency run over TCP warms the JIT first (JitWarmup) by default; the peer sees nothing of it
        final boolean warmed = java.text().contains("JIT warm-up: " + IbOptions.DEFAULT_WARMUP
            + " iterations on a private QP pair");
        assertEquals(test.endsWith("_lat") && !args.contains("-R"), warmed, what + ":\n" + java.text());
        assertTrue(java.text().lines().anyMatch(l -> l.matches(" " + size + " +(" + iters + "|0) .*"))
            || java.text().contains(" iterations served"), what + ": no mlx5j result\n" + java.text());
        assertEquals(before, EmulatedDevice.strictViolations(), what + " broke a driver rule in this JVM");
        return java.text();
    }
}
