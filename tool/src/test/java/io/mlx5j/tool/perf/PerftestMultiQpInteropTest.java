// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.tool.Capture;
import io.mlx5j.tool.Mlx5jTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perftest's {@code -q N}: N QPs per side, one destination handshake each, posts round-robin, one CQ; against the
 * unmodified perftest 4.5 bw programs in both roles, up to 256 QPs, and in loopback with mlx5j's data check.
 */
class PerftestMultiQpInteropTest
{
    @ParameterizedTest(name = "{0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_bw, -q 4 -s 4096 -n 200, true",
        "write_bw, -q 4 -s 4096 -n 200, false",
        "read_bw,  -q 4 -s 1024 -n 200, true",
        "read_bw,  -q 4 -s 1024 -n 200, false",
        "send_bw,  -q 4 -s 1024 -n 200, true",
        "send_bw,  -q 4 -s 1024 -n 200, false",
    })
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void fourQueuePairs(final String test, final String args, final boolean javaServer) throws Exception
    {
        final String out = PerftestInterop.run(test, javaServer, List.of(), List.of(args.trim().split(" +")),
            List.of(args.trim().split(" +")));
        assertTrue(out.contains(" Number of qps  : 4 "), out);
    }

    /** 256 QPs per side (the emulator's context then shares each medium BlueFlame register among ~23 QPs). */
    @ParameterizedTest(name = "write_bw -q 256, mlx5j server {0}")
    @CsvSource({"true", "false"})
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void twoHundredFiftySixQueuePairs(final boolean javaServer) throws Exception
    {
        final List<String> args = List.of("-q", "256", "-s", "1024", "-n", "20", "-t", "16", "-Q", "4");
        final String out = PerftestInterop.run("write_bw", javaServer, List.of(), args, args);
        assertTrue(out.contains(" Number of qps  : 256 "), out);
        assertTrue(out.contains("BlueFlame register : dedicated 4, locked 252"), out);
    }

    /** Both sides in this process: every QP's WRITE lands, and the data check passes. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void loopbackChecksTheData()
    {
        final Capture c = new Capture();
        final int status = Mlx5jTool.run(new String[] {"perf", "write_bw", "--loopback", "-q", "16", "-s", "256",
            "-n", "100", "--no-progress"}, c.stream, c.stream);
        assertEquals(0, status, c.text());
        assertTrue(c.text().contains(" Number of qps  : 16 "), c.text());
        assertTrue(c.text().lines().anyMatch(l -> l.matches(" 256 +1600 .*")), c.text());
        assertTrue(c.text().lines().anyMatch(l -> l.startsWith(" data check: ") && l.contains(" bytes ok")), c.text());
    }
}
