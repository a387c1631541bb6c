// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.tool.Capture;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressTest
{
    @Test
    void reportsOnEvery1024thIterationOnceTheQuietTimeHasPassed()
    {
        final Capture err = new Capture();
        final Progress p = new Progress(err.stream, "write_lat", 4096, true, 0, 0);
        p.tick(1000); // not a multiple of 1024: the clock is not even read
        assertEquals("", err.text());
        p.tick(1024);
        p.tick(2048);
        p.finish(4096);
        final List<String> lines = err.text().lines().toList();
        assertEquals(3, lines.size(), err.text());
        assertTrue(lines.get(0).startsWith("mlx5j: write_lat 1024/4096 iterations (25%), "), lines.get(0));
        assertTrue(lines.get(1).startsWith("mlx5j: write_lat 2048/4096 iterations (50%), "), lines.get(1));
        assertTrue(lines.get(2).startsWith("mlx5j: write_lat 4096/4096 iterations done in "), lines.get(2));
    }

    @Test
    void shortRunsAndDisabledProgressPrintNothing()
    {
        final Capture err = new Capture();
        final Progress quiet = new Progress(err.stream, "write_bw", 2048, true); // first second is quiet
        quiet.tick(1024);
        quiet.finish(2048);
        final Progress off = new Progress(err.stream, "write_bw", 2048, false, 0, 0);
        off.tick(1024);
        off.finish(2048);
        assertEquals("", err.text());
    }
}
