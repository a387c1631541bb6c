// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.ProtectionDomain;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JIT warm-up of a latency run ({@code --warmup N}): N iterations of the loops the run will use, on a private
 * pair of QPs in this process, then a wait until the compiler threads are quiet. Before a two-process run's TCP
 * exchange the initiating loop runs on this thread and the answering loop on a second one, as the two processes run
 * them; before a {@code --loopback} run both run on this thread, as the run drives them.
 * <p>
 * Why: a run's samples start with its first iteration, and a JVM compiles its hot methods during the first second of
 * it. On two cores, with both programs' main threads spinning, the compiler threads then take a core from a poller
 * or an engine: in two-JVM {@code write_lat -n 50000} runs most samples over 1 ms fell in the first tenth of the run
 * (measured on the 2-core test VM), and p99.9 was 2 to 6 ms against 0.7 to 1.1 ms for runs six times longer.
 * perftest in C has nothing to warm, so warming the JVM first compares like with like.
 * <p>
 * The wire is untouched: a server warms up after it listens (a client that connects meanwhile waits in the kernel's
 * backlog, perftest included) and before it accepts; a client warms up before it connects.
 */
final class JitWarmup
{
    /** The compiler counts as quiet when its total time did not move over this many polls... */
    private static final int QUIET_POLLS = 3;
    /** ...this far apart. */
    private static final long POLL_MILLIS = 20;
    /** The wait for quiet compilers ends here in any case (a JIT that never settles must not stall the run). */
    private static final long MAX_SETTLE_MILLIS = 3_000;
    /** How often the warm-up's progress report is due (the run's: every second). */
    private static final long REPORT_NANOS = 1_000_000;
    private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

    private JitWarmup()
    {
    }

    /**
     * Runs the warm-up of {@code o} ({@link IbOptions#warmup()} iterations; nothing if 0) and reports it in one
     * line on {@code err}. On the thread that then runs {@code o}: the warm-up's QPs are its own and closed here.
     */
    static void run(final Context context, final ProtectionDomain pd, final PerfOptions o, final int rdAtomic,
        final PrintStream err)
    {
        if (o.ib().warmup() == 0)
        {
            return;
        }
        final PerfOptions w = o.forWarmup();
        final long start = System.nanoTime();
        try (RcEndpoint a = PerfCommand.endpoint(context, pd, w); RcEndpoint b = PerfCommand.endpoint(context, pd, w))
        {
            final boolean shared = a.bfRegister() == b.bfRegister();
            a.directPath(w.mode(), shared);
            b.directPath(w.mode(), shared);
            final int mtu = PerfCommand.pathMtu(w, a.port);
            a.connectAll(b, mtu, rdAtomic, rdAtomic, IbOptions.DEFAULT_QP_TIMEOUT);
            b.connectAll(a, mtu, rdAtomic, rdAtomic, IbOptions.DEFAULT_QP_TIMEOUT);
            a.prepare(w, true);
            b.prepare(w, true);
            loops(a, b, w, PerfCommand.stallNanos(w), o.role() == PerfOptions.Role.LOOPBACK);
        }
        final long ran = System.nanoTime() - start;
        final long settled = settle();
        err.printf("mlx5j: JIT warm-up: %d iterations on a private QP pair in %d ms, compiler quiet %d ms later%n",
            w.iterations(), ran / 1_000_000, settled);
        err.flush();
    }

    /**
     * A progress report like the run's (enabled as there), printing nowhere, due every {@link #REPORT_NANOS}: the
     * loops' report branch is then taken during the warm-up as in the run. With progress off in the warm-up and on
     * in the run, C2 compiled the branch the run takes as never taken (an uncommon trap), and the run's first
     * iteration threw the compiled loop away; the first report, a second after the start, did the same.
     */
    private static Progress quiet(final PerfOptions w)
    {
        return new Progress(DISCARD, "warm-up", w.iterations(), w.progress(), 0, REPORT_NANOS);
    }

    /**
     * The initiating loop here; the answering one (if the test has one) here too for a loopback run
     * ({@code loopback}), else on a second thread that owns {@code b}.
     */
    private static void loops(final RcEndpoint a, final RcEndpoint b, final PerfOptions w, final long stall,
        final boolean loopback)
    {
        final Progress quiet = quiet(w);
        final PerfTest t = w.test();
        if (t != PerfTest.WRITE_LAT && t != PerfTest.SEND_LAT)
        {
            PerfLoops.oneSidedLat(a, w, quiet, stall);
            return;
        }
        if (loopback)
        {
            // the loopback run's own calls (PerfCommand.loopback): the answering side is driven between the
            // initiator's steps, so the profile C2 compiles from is the run's
            final PerfLoops.Latency r = t == PerfTest.WRITE_LAT ? PerfLoops.writeLat(a, b, w, quiet, stall)
                : PerfLoops.sendLat(a, b, w, quiet, stall);
            a.quiesce(stall);
            b.quiesce(stall);
            completed(r, w);
            return;
        }
        final Throwable[] failed = new Throwable[1];
        final Thread answering = new Thread(() ->
        {
            try
            {
                b.cq.claim();   // b's queues and CQ are this thread's from here on
                if (t == PerfTest.WRITE_LAT)
                {
                    PerfLoops.writeLatResponder(b, w, quiet(w), stall);
                }
                else
                {
                    PerfLoops.sendLatResponder(b, w, quiet(w), stall);
                }
                b.quiesce(stall);
            }
            catch (final Throwable ex)
            {
                failed[0] = ex;
            }
        }, "mlx5j-warmup");
        answering.setDaemon(true);
        answering.start();
        final PerfLoops.Latency r = t == PerfTest.WRITE_LAT ? PerfLoops.writeLat(a, null, w, quiet, stall)
            : PerfLoops.sendLat(a, null, w, quiet, stall);
        a.quiesce(stall);
        try
        {
            answering.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the JIT warm-up", ex);
        }
        if (failed[0] != null)
        {
            throw new IllegalStateException("JIT warm-up: the answering loop failed: " + failed[0], failed[0]);
        }
        completed(r, w);
    }

    private static void completed(final PerfLoops.Latency r, final PerfOptions w)
    {
        if (r.iterations() != w.iterations())
        {
            throw new IllegalStateException("JIT warm-up: " + r.iterations() + " of " + w.iterations()
                + " iterations completed");
        }
    }

    /** Waits until the compiler's total time stops moving; returns the milliseconds waited. */
    private static long settle()
    {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported())
        {
            return 0;
        }
        final long start = System.nanoTime();
        long last = jit.getTotalCompilationTime();
        int quiet = 0;
        while (quiet < QUIET_POLLS && System.nanoTime() - start < MAX_SETTLE_MILLIS * 1_000_000)
        {
            try
            {
                Thread.sleep(POLL_MILLIS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
            final long now = jit.getTotalCompilationTime();
            quiet = now == last ? quiet + 1 : 0;
            last = now;
        }
        return (System.nanoTime() - start) / 1_000_000;
    }
}
