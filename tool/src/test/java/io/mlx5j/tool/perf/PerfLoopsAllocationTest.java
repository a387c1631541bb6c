// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.ProtectionDomain;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The measuring loops allocate nothing per iteration: after a warm-up run, the least of three runs of 10000
 * iterations allocates (on this thread) no more than its sample array plus a small one-off slack; 1 byte per
 * iteration would be more than twice the slack. The 8-byte doorbell, for the reason given in Mlx5jToolTest.
 */
class PerfLoopsAllocationTest
{
    private static final int N = 10_000;
    /** One-off allocations tolerated per run (e.g. a lazily built object on the first call); not per iteration. */
    private static final long SLACK = 4096;

    @Test
    void latencyAndBandwidthLoopsAllocateNothingPerIteration()
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        for (final String test : new String[] {"write_lat", "send_lat", "read_lat", "atomic_lat", "write_bw"})
        {
            final PerfOptions options = test.equals("atomic_lat")
                ? PerfOptions.parse(test, "--loopback", "-n", Integer.toString(N), "--doorbell", "doorbell")
                : PerfOptions.parse(test, "--loopback", "-n", Integer.toString(N), "--doorbell", "doorbell", "-s",
                    "64", "-t", "32", "-Q", "8");
            try (Context context = Context.open("mlx5_0");
                 ProtectionDomain pd = context.allocPd();
                 RcEndpoint a = PerfCommand.endpoint(context, pd, options);
                 RcEndpoint b = PerfCommand.endpoint(context, pd, options))
            {
                a.directPath(options.mode(), false);
                b.directPath(options.mode(), false);
                final int mtu = a.port.activeMtu();
                a.connect(b.local(), mtu, 1);
                b.connect(a.local(), mtu, 1);
                a.prepare(options, true);
                b.prepare(options, true);
                final Progress quiet = new Progress(new PrintStream(OutputStream.nullOutputStream()), test, N, false);
                run(a, b, options, quiet); // warm-up: JIT, lazily built state
                // The least of three runs: a per-iteration allocation shows in every run (at least N bytes), a
                // one-off does not (CI once saw 5728 bytes in a single write_bw run: a late recompilation's state)
                long allocated = Long.MAX_VALUE;
                for (int r = 0; r < 3; r++)
                {
                    final long before = mx.getThreadAllocatedBytes(thread);
                    run(a, b, options, quiet);
                    allocated = Math.min(allocated, mx.getThreadAllocatedBytes(thread) - before);
                }
                final long samples = options.test().isLatency() ? 16L + 8L * N : 0;
                assertTrue(allocated <= samples + SLACK, test + ": " + allocated + " bytes allocated for " + N
                    + " iterations (sample array " + samples + ")");
            }
        }
    }

    private static void run(final RcEndpoint a, final RcEndpoint b, final PerfOptions o, final Progress progress)
    {
        final long stall = 60_000_000_000L;
        switch (o.test())
        {
            case WRITE_LAT -> PerfLoops.writeLat(a, b, o, progress, stall);
            case SEND_LAT -> PerfLoops.sendLat(a, b, o, progress, stall);
            case READ_LAT, ATOMIC_LAT -> PerfLoops.oneSidedLat(a, o, progress, stall);
            default -> PerfLoops.bandwidth(a, b, o, progress, stall);
        }
    }
}
