// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.ProtectionDomain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The raw measuring loops allocate nothing per frame: after a warm-up run, the least of three loopback runs
 * allocates (on this thread) no more than its sample array plus a small one-off slack. Any object allocated per
 * frame (16 bytes at least) would exceed the slack in every run: raw_bw sends and receives 5000 frames, raw_lat 300
 * round trips (each a send and a receive on both QPs, with every frame checked), and raw_bw -D 1 runs for a second.
 * A one-off (a late recompilation's state, seen once in PerfLoopsAllocationTest on CI) shows in one run only.
 */
@Tag("roce")
class RawPerfLoopsAllocationTest
{
    private static final long SLACK = 4096;

    @Test
    void rawLoopsAllocateNothingPerFrame()
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        final Progress quiet = new Progress(new PrintStream(OutputStream.nullOutputStream()), "raw", 1, false);
        for (final String[] args : new String[][] {
            {"raw_bw", "--loopback", "-n", "5000", "-s", "256", "-J", "10.1.0.2", "-j", "10.1.0.1", "-K", "7001",
                "-k", "7002", "--doorbell", "doorbell", "-N"},
            {"raw_lat", "--loopback", "-n", "300", "-s", "128", "--doorbell", "doorbell"},
            {"raw_bw", "--loopback", "-D", "1", "-s", "256", "--doorbell", "doorbell"}})
        {
            final PerfOptions o = PerfOptions.parse(args);
            final long samples = o.test().isLatency() ? 16L + 8L * o.iterations() : 0;
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 4; round++)
            {
                try (Context context = Context.open("mlx5_0");
                     ProtectionDomain pd = context.allocPd();
                     RawEndpoint server = new RawEndpoint(context, pd, o, true);
                     RawEndpoint client = new RawEndpoint(context, pd, o, false))
                {
                    server.start(server.bfRegister() == client.bfRegister());
                    client.start(server.bfRegister() == client.bfRegister());
                    final long stall = 60_000_000_000L;
                    final long before = mx.getThreadAllocatedBytes(thread);
                    if (o.test().isLatency())
                    {
                        PerfLoops.sendLat(client, server, o, quiet, stall);
                        client.drain(server, stall);
                        server.drain(client, stall);
                    }
                    else
                    {
                        PerfLoops.bandwidth(client, server, o, quiet, stall);
                        client.drain(server, stall);
                    }
                    final long allocated = mx.getThreadAllocatedBytes(thread) - before;
                    if (round > 0) // round 0 warms up (JIT, lazily built state)
                    {
                        least = Math.min(least, allocated);
                    }
                    assertTrue(o.duration() > 0 || server.received == o.iterations(), String.join(" ", args)
                        + ": the server received " + server.received);
                }
            }
            assertTrue(least <= samples + SLACK, String.join(" ", args) + ": " + least
                + " bytes allocated in the least of three runs (sample array " + samples + ")");
        }
    }
}
