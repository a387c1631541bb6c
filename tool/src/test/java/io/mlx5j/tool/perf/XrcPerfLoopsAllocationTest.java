// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.ProtectionDomain;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * As {@link PerfLoopsAllocationTest}, over {@code -c XRC} ({@link XrcEndpoint}): the XRC INI QP's posts (each WQE
 * naming the peer's SRQ), the receives of the XRC SRQ posted again as they complete (send_lat, send_bw), READs and
 * atomics through the TGT QP allocate nothing per iteration; the least of three runs of 10000 iterations allocates no
 * more than its sample array and a small one-off slack. The 8-byte doorbell, as there.
 */
class XrcPerfLoopsAllocationTest
{
    private static final int N = 10_000;
    private static final long SLACK = 4096;

    @ParameterizedTest(name = "{0} -c XRC")
    @ValueSource(strings = {"write_lat", "send_lat", "read_lat", "atomic_lat", "write_bw", "send_bw"})
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void loopsAllocateNothingPerIteration(final String test)
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        final PerfOptions options = test.equals("atomic_lat")
            ? PerfOptions.parse(test, "-c", "XRC", "--loopback", "-n", Integer.toString(N), "--doorbell", "doorbell")
            : PerfOptions.parse(test, "-c", "XRC", "--loopback", "-n", Integer.toString(N), "--doorbell", "doorbell",
                "-s", "64", "-t", "32", "-Q", "8");
        try (Context context = Context.open("mlx5_0");
             ProtectionDomain pd = context.allocPd();
             RcEndpoint a = PerfCommand.endpoint(context, pd, options);
             RcEndpoint b = PerfCommand.endpoint(context, pd, options))
        {
            assertTrue(a instanceof XrcEndpoint && b instanceof XrcEndpoint, a + " " + b);
            a.directPath(options.mode(), false);
            b.directPath(options.mode(), false);
            final int mtu = a.port.activeMtu();
            a.connectAll(b, mtu, 1, 1, IbOptions.DEFAULT_QP_TIMEOUT);
            b.connectAll(a, mtu, 1, 1, IbOptions.DEFAULT_QP_TIMEOUT);
            a.prepare(options, true);
            b.prepare(options, true);
            final Progress quiet = new Progress(new PrintStream(OutputStream.nullOutputStream()), test, N, false);
            run(a, b, options, quiet); // warm-up: JIT, lazily built state
            long allocated = Long.MAX_VALUE;
            for (int r = 0; r < 3; r++)
            {
                final long before = mx.getThreadAllocatedBytes(thread);
                run(a, b, options, quiet);
                allocated = Math.min(allocated, mx.getThreadAllocatedBytes(thread) - before);
            }
            final long samples = options.test().isLatency() ? 16L + 8L * N : 0;
            assertTrue(allocated <= samples + SLACK, test + " -c XRC: " + allocated + " bytes allocated for " + N
                + " iterations (sample array " + samples + ")");
            if (options.test().isSend())
            {
                // every SEND completed a receive of b's XRC SRQ (send_lat: and of a's): 4 runs of N
                assertEquals(4L * N, b.received, test);
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
