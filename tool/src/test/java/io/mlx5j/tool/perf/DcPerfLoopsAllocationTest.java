// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.ProtectionDomain;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The measuring loops over two {@link DcEndpoint}s in this process (each DCI targeting the other side's DCT, as
 * {@link DcExchange} connects them) allocate nothing per iteration, as {@link PerfLoopsAllocationTest} checks for RC:
 * the DC post (the staged WQE with its DC address) is on that path. The data checks of the patterns run too.
 */
class DcPerfLoopsAllocationTest
{
    private static final int N = 10_000;
    private static final long SLACK = 4096;

    @Test
    void dcLoopsAllocateNothingPerIterationAndMoveTheData()
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        for (final String test : new String[] {"write_lat", "send_lat", "read_lat", "write_bw", "send_bw"})
        {
            // parsed as a loopback run (a -c DC parse refuses --loopback): the loops only need the sizes and depths
            final PerfOptions o = PerfOptions.parse(test, "--loopback", "-n", Integer.toString(N), "--doorbell",
                "doorbell", "-s", "64", "-I", "64", "-t", "32", "-Q", "8");
            try (Context context = Context.open("mlx5_0");
                 ProtectionDomain pd = context.allocPd();
                 DcEndpoint a = endpoint(context, pd, o);
                 DcEndpoint b = endpoint(context, pd, o))
            {
                final int mtu = a.port.activeMtu();
                a.activate(mtu, a.pathTo(b.port.lid(), b.gid), IbOptions.DEFAULT_QP_TIMEOUT, 1);
                b.activate(mtu, b.pathTo(a.port.lid(), a.gid), IbOptions.DEFAULT_QP_TIMEOUT, 1);
                a.target(dctOf(b), a.pathTo(b.port.lid(), b.gid));
                b.target(dctOf(a), b.pathTo(a.port.lid(), a.gid));
                a.prepare(o, true);
                b.prepare(o, true);
                final Progress quiet = new Progress(new PrintStream(OutputStream.nullOutputStream()), test, N, false);
                run(a, b, o, quiet);
                long allocated = Long.MAX_VALUE;
                for (int r = 0; r < 3; r++)
                {
                    final long before = mx.getThreadAllocatedBytes(thread);
                    run(a, b, o, quiet);
                    allocated = Math.min(allocated, mx.getThreadAllocatedBytes(thread) - before);
                }
                final long samples = o.test().isLatency() ? 16L + 8L * N : 0;
                assertTrue(allocated <= samples + SLACK, "DC " + test + ": " + allocated + " bytes allocated for " + N
                    + " iterations (sample array " + samples + ")");
                if (o.test().isSend())
                {
                    // every SEND of the five runs came through b's DCT onto its SRQ
                    assertEquals(4L * N, b.received, "DC " + test + ": receives on the SRQ");
                }
                // the bytes: what a sent, or wrote, or read, as the RC loopback checks them
                assertTrue(PerfCommand.verifyInitiator(a, o).contains("ok") || !o.test().isRead(),
                    PerfCommand.verifyInitiator(a, o));
                assertTrue(PerfCommand.verifyResponder(b, o).contains("ok") || o.test().isRead(),
                    PerfCommand.verifyResponder(b, o));
            }
        }
    }

    private static DcEndpoint endpoint(final Context context, final ProtectionDomain pd, final PerfOptions o)
    {
        return new DcEndpoint(context, pd, 1, -1, o.sendDepth(), o.test().isSend() ? o.rxDepth() : 0,
            o.inlineSize(), o.maxSize()).directPath(o.mode(), true);
    }

    /** The peer's DCT and buffer, as its destination after RTR carries them. */
    private static PeerInfo dctOf(final DcEndpoint e)
    {
        return PeerInfo.of(e.port.lid(), e.dct.qpn(), e.psn, e.gid).withBuffer(e.mr.rkey(), e.recvArea, e.areaSize);
    }

    private static void run(final DcEndpoint a, final DcEndpoint b, final PerfOptions o, final Progress progress)
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
