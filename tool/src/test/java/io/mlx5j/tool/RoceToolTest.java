// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tool on the Ethernet-link emulated device (surefire's "roce" execution): GID addressing with a GRH on every
 * packet. The examples need {@code -g 0} there, and so does mlx5j's pingpong (perf picks GID 0 by itself).
 */
@Tag("roce")
class RoceToolTest
{
    private static final String GID = "fe80::9a03:9bff:fe4d:4500";

    @Test
    void devicesShowsTheEthernetPortAndItsGids()
    {
        final Capture out = new Capture();
        assertEquals(0, Mlx5jTool.run(new String[] {"devices"}, out.stream, out.stream), out.text());
        final List<String> lines = out.text().lines().toList();
        assertEquals("    port 1         ACTIVE, Ethernet (RoCE), LID 0x0000, MTU 1024", lines.get(4));
        // the emulator's RoCE GID: fe80:: + the EUI-64 of MAC 98:03:9b:4d:45:00 (U/L bit flipped, ff:fe inserted)
        assertEquals("        GID[  0]  fe80:0000:0000:0000:9a03:9bff:fe4d:4500", lines.get(5));
    }

    @Test
    void writeLatLoopbackRoutesByGid()
    {
        final long before = EmulatedDevice.strictViolations();
        final Capture out = new Capture();
        final Capture err = new Capture();
        final String[] args = {"perf", "write_lat", "--loopback", "-n", "200", "--doorbell", "doorbell",
            "--no-progress"};
        assertEquals(0, Mlx5jTool.run(args, out.stream, err.stream), out.text() + err.text());
        assertTrue(out.text().contains(" Device         : mlx5_0 port 1 (ACTIVE, Ethernet/RoCE)"), out.text());
        assertTrue(out.text().contains(" GID " + GID + "\n"), out.text());
        assertTrue(out.text().contains(" 200 samples (round trip / 2); data check: reply 1 bytes ok"), out.text());
        assertEquals(before, EmulatedDevice.strictViolations());
    }

    @Test
    void ibvRcPingpongClientAgainstMlx5jServerWithGids() throws Exception
    {
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final Capture server = new Capture();
        final CompletableFuture<Integer> java = CompletableFuture.supplyAsync(() -> Mlx5jTool.run(new String[] {
            "pingpong", "-p", "" + port, "-n", "20", "-g", "0", "-c", "--timeout", "20"}, server.stream,
            server.stream));
        server.awaitContains("local address:", 60);
        final ChildProcess.Result c = new ChildProcess("roce-rc-client", List.of("/usr/bin/ibv_rc_pingpong", "-p",
            "" + port, "-n", "20", "-g", "0", "-c", "localhost")).await(120);
        c.assertClean("ibv_rc_pingpong client", server.text());
        assertEquals(0, java.get(120, TimeUnit.SECONDS), server.text());
        assertTrue(c.out().contains("  remote address: LID 0x0000, QPN 0x"), c.out());
        assertTrue(c.out().contains(", GID " + GID + "\n"), c.out());
        assertTrue(server.text().contains("20 iters in "), server.text());
        assertTrue(c.out().contains("20 iters in "), c.out());
        assertTrue(!server.text().contains("invalid data"), server.text());
        assertEquals(before, EmulatedDevice.strictViolations());
    }

    @Test
    void mlx5jUdClientAgainstIbvUdPingpongServerWithGids() throws Exception
    {
        final long before = EmulatedDevice.strictViolations();
        final int port = EmulatedDevice.freeTcpPort();
        final ChildProcess c = new ChildProcess("roce-ud-server", List.of("/usr/bin/ibv_ud_pingpong", "-p",
            "" + port, "-n", "20", "-g", "0", "-c"));
        final Capture client = new Capture();
        final int status = Mlx5jTool.run(new String[] {"pingpong", "--ud", "-p", "" + port, "-n", "20", "-g", "0",
            "-c", "--timeout", "20", "localhost"}, client.stream, client.stream);
        if (status != 0)
        {
            c.kill();
        }
        final ChildProcess.Result server = c.await(120);
        server.assertClean("ibv_ud_pingpong server", client.text());
        assertEquals(0, status, client.text());
        assertTrue(client.text().contains("  local address:  LID 0x0000, QPN 0x"), client.text());
        assertTrue(client.text().contains(": GID " + GID + "\n"), client.text());
        assertTrue(server.out().contains("20 iters in "), server.out());
        assertTrue(!server.out().contains("invalid data"), server.out());
        assertEquals(before, EmulatedDevice.strictViolations());
    }
}
