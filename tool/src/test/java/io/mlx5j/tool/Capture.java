// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Output captured from an in-process tool run ({@link Mlx5jTool#run}); readable while the tool still runs. */
public final class Capture
{
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    public final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    public String text()
    {
        synchronized (bytes)
        {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** Waits until the output contains {@code marker}. */
    public void awaitContains(final String marker, final long seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!text().contains(marker))
        {
            assertTrue(System.nanoTime() < deadline, "no '" + marker + "' within " + seconds + " s:\n" + text());
            Thread.sleep(10);
        }
    }
}
