// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress of a long run on stderr: silent for the first second (short runs print nothing), then one line about
 * every second. {@link #tick} is called from the measuring loop between samples; it reads the clock only once every
 * 1024 iterations, so its cost stays out of the numbers.
 */
final class Progress
{
    private static final long QUIET_NANOS = 1_000_000_000L;
    private static final long EVERY_NANOS = 1_000_000_000L;

    private final PrintStream err;
    private final String what;
    private final long total;
    private final boolean enabled;
    private final long everyNanos;
    private final long start;
    private long nextReport;
    private boolean printed;

    Progress(final PrintStream err, final String what, final long total, final boolean enabled)
    {
        this(err, what, total, enabled, QUIET_NANOS, EVERY_NANOS);
    }

    /** With other intervals (tests). */
    Progress(final PrintStream err, final String what, final long total, final boolean enabled,
        final long quietNanos, final long everyNanos)
    {
        this.err = err;
        this.what = what;
        this.total = total;
        this.enabled = enabled;
        this.everyNanos = everyNanos;
        this.start = System.nanoTime();
        this.nextReport = start + quietNanos;
    }

    /** {@code done} iterations are complete. */
    void tick(final long done)
    {
        if (!enabled || (done & 1023) != 0)
        {
            return;
        }
        final long now = System.nanoTime();
        if (now - nextReport < 0)
        {
            return;
        }
        nextReport = now + everyNanos;
        printed = true;
        final double seconds = (now - start) * 1e-9;
        final double left = done > 0 ? seconds * (total - done) / done : 0;
        err.printf(Locale.ROOT, "mlx5j: %s %d/%d iterations (%.0f%%), %.1f s, about %.0f s left%n", what, done, total,
            100.0 * done / total, seconds, left);
    }

    /** Ends the progress output (a final line only if progress lines were printed). */
    void finish(final long done)
    {
        if (enabled && printed)
        {
            err.printf(Locale.ROOT, "mlx5j: %s %d/%d iterations done in %.1f s%n", what, done, total,
                (System.nanoTime() - start) * 1e-9);
        }
    }
}
