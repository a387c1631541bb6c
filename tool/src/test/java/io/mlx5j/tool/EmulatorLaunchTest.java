// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.testkit.ChildProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which commands start again on the emulator, with which mlx5emu options (decided in Java, not in the shell
 * launcher), and the whole path in a child JVM that has no emulator preloaded.
 */
class EmulatorLaunchTest
{
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final List<String> JVM = List.of("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED");

    @Test
    void onlyDeviceCommandsNeedTheEmulator()
    {
        // this JVM already runs on the emulator (surefire preloads it): nothing starts again
        assertTrue(Mlx5jTool.isEmulated());
        assertNull(EmulatorLaunch.reason(new String[] {"devices"}, false));
        for (final String c : List.of("devices", "perf", "pingpong", "rping", "feed", "validate", "blocks"))
        {
            assertTrue(EmulatorLaunch.needsDevice(c), c);
        }
        for (final String c : List.of("selfcheck", "help", "--help", "-h", "frobnicate"))
        {
            assertFalse(EmulatorLaunch.needsDevice(c), c);
        }
    }

    @Test
    void onlyMlx5DevicesCountAsHardware(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
        throws Exception
    {
        // the emulator's tree (SYSFS_PATH, written by mlx5emu --env) binds its function to mlx5_core, as Linux does;
        // beside it a soft-RoCE device without a PCI function and an Intel one bound to irdma
        final java.nio.file.Path emulated = java.nio.file.Path.of(System.getenv("SYSFS_PATH"), "class", "infiniband");
        assertEquals(List.of("mlx5_0"), EmulatorLaunch.devices(emulated, true));
        assertEquals(List.of(), EmulatorLaunch.devices(emulated, false));
        final java.nio.file.Path root = dir.resolve("class/infiniband");
        java.nio.file.Files.createDirectories(root.resolve("rxe0"));
        java.nio.file.Files.createDirectories(dir.resolve("bus/pci/drivers/irdma"));
        java.nio.file.Files.createDirectories(dir.resolve("devices/0000:3b:00.0"));
        java.nio.file.Files.createSymbolicLink(dir.resolve("devices/0000:3b:00.0/driver"),
            dir.resolve("bus/pci/drivers/irdma"));
        java.nio.file.Files.createDirectories(root.resolve("irdma0"));
        java.nio.file.Files.createSymbolicLink(root.resolve("irdma0/device"), dir.resolve("devices/0000:3b:00.0"));
        assertEquals(List.of(), EmulatorLaunch.devices(root, true));
        final List<String> others = EmulatorLaunch.devices(root, false);
        assertEquals(List.of("irdma0 (driver irdma)", "rxe0 (no driver)"), others);
        assertEquals("no mlx5 device found (irdma0 (driver irdma), rxe0 (no driver) cannot be used: mlx5j needs an "
            + "mlx5 device, ConnectX-4 or later, driver mlx5_core); using the emulated ConnectX (emulator/mlx5emu)",
            EmulatorLaunch.noDevice(others));
        assertEquals("no RDMA device found; using the emulated ConnectX (emulator/mlx5emu)",
            EmulatorLaunch.noDevice(List.of()));
        java.nio.file.Files.createSymbolicLink(root.resolve("mlx5_0"), emulated.resolve("mlx5_0").toRealPath());
        assertEquals(List.of("mlx5_0"), EmulatorLaunch.devices(root, true));
    }

    @Test
    void rawEthernetCommandsGetAnEthernetLink()
    {
        assertEquals(List.of("/emu/mlx5emu", "--link", "eth", "--", "/jdk/bin/java",
            "--enable-native-access=ALL-UNNAMED", "-cp", "a.jar:b.jar", "io.mlx5j.tool.Mlx5jTool", "feed", "publish",
            "-n", "10"), EmulatorLaunch.command("/emu/mlx5emu", null, JVM, "a.jar:b.jar",
            new String[] {"feed", "publish", "-n", "10"}));
        assertEquals(List.of("/emu/mlx5emu", "--log", "--link", "eth", "--"),
            EmulatorLaunch.command("/emu/mlx5emu", " --log ", JVM, "cp", new String[] {"perf", "raw_bw", "--server"})
                .subList(0, 5));
        // the user's own link wins, in either spelling
        assertEquals(List.of("/emu/mlx5emu", "--link", "ib", "--"),
            EmulatorLaunch.command("/emu/mlx5emu", "--link ib", JVM, "cp", new String[] {"feed", "subscribe"})
                .subList(0, 4));
        assertEquals(List.of("/emu/mlx5emu", "--link=ib", "--"),
            EmulatorLaunch.command("/emu/mlx5emu", "--link=ib", JVM, "cp", new String[] {"perf", "raw_lat"})
                .subList(0, 3));
        // RDMA tests run on the emulator's default link (InfiniBand, or MLX5EMU_LINK)
        assertEquals(List.of("/emu/mlx5emu", "--", "/jdk/bin/java"),
            EmulatorLaunch.command("/emu/mlx5emu", "", JVM, "cp", new String[] {"perf", "write_lat", "-n", "5"})
                .subList(0, 3));
    }

    /**
     * The launch itself: a JVM without the emulator (no LD_PRELOAD, no SYSFS_PATH), asked for {@code --emulated}
     * runs, starts itself again under emulator/mlx5emu and reports the emulated device, with its exit status.
     */
    @Test
    void aJvmWithoutTheEmulatorStartsItselfOnIt() throws Exception
    {
        final Run devices = runUnemulated("devices", "--emulated");
        assertEquals(0, devices.exit, devices.out + devices.err);
        assertEquals("mlx5j: --emulated: using the emulated ConnectX (emulator/mlx5emu)\n", devices.err);
        assertTrue(devices.out.startsWith("mlx5j: 1 device (emulated ConnectX-5 through emulator/mlx5emu; no RDMA "
            + "hardware in use)\nmlx5_0\n"), devices.out);
        assertTrue(devices.out.contains("    port 1         ACTIVE, InfiniBand, LID 0x0001, MTU 4096"), devices.out);

        // raw Ethernet: the dispatcher asks mlx5emu for an Ethernet port (on InfiniBand raw_lat could not run)
        final Run raw = runUnemulated("perf", "raw_lat", "--loopback", "-n", "50", "--no-progress", "--emulated");
        assertEquals(0, raw.exit, raw.out + raw.err);
        assertTrue(raw.out.contains("Raw Ethernet"), raw.out);

        // the child's exit status is the tool's: a usage error is 2
        final Run bad = runUnemulated("devices", "--emulated", "--frobnicate");
        assertEquals(2, bad.exit, bad.out + bad.err);
        assertTrue(bad.err.contains("mlx5j: unknown option '--frobnicate'"), bad.err);

        // selfcheck needs no device: no emulator, nothing on stderr
        final Run self = runUnemulated("selfcheck");
        assertEquals(0, self.exit, self.err);
        assertEquals("", self.err);
    }

    /** Started by hand without the launcher's -Dmlx5j.emulator: a message that says how to start it, exit 1. */
    @Test
    void noEmulatorToRunOnIsARunTimeFailure() throws Exception
    {
        final Run run = run(Path.of("target", "no-such-mlx5emu").toAbsolutePath().toString(), "devices", "--emulated");
        assertEquals(1, run.exit, run.out + run.err);
        assertEquals("", run.out);
        assertTrue(run.err.startsWith("mlx5j: no RDMA device found and no emulator to run on (mlx5j.emulator="),
            run.err);
        assertTrue(run.err.endsWith("); start the tool through ./mlx5j\n"), run.err);
    }

    /**
     * The market-data feed as docs/market-data.md shows it, in two shells: a subscriber started by hand, a publisher
     * started seconds later, each tool launching itself on its own emulator launch (its own sysfs tree), meeting on
     * one fabric. The publisher starts after the subscriber's after-the-last-message timeout ({@code -t 1}) has
     * passed: the subscriber waits for the first message however late it comes.
     */
    @Test
    void aFeedBetweenTwoSeparatelyLaunchedToolsReachesTheSubscriber() throws Exception
    {
        final Launch subscriber = startUnemulated("feed", "subscribe", "-n", "500", "-g", "239.7.7.9", "-p", "30009",
            "--tag", "12", "-t", "1", "-w", "300");
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.readString(subscriber.out).contains("subscribed to 239.7.7.9:30009 (flow tag 12)"))
            {
                assertTrue(subscriber.process.isAlive(), "the subscriber ended: " + Files.readString(subscriber.err));
                assertTrue(System.nanoTime() < deadline, "the subscriber did not subscribe within 120 s");
                Thread.sleep(20);
            }
            Thread.sleep(2000);     // twice the subscriber's -t: what a person typing the second command takes
            final Run pub = runUnemulated("feed", "publish", "-n", "500", "-r", "1000", "-s", "100", "-g",
                "239.7.7.9", "-p", "30009");
            assertEquals(0, pub.exit, pub.out + pub.err);
            assertTrue(pub.out.contains("published 500 messages of 100 bytes to 239.7.7.9:30009"), pub.out);
            final Run sub = subscriber.await();
            assertEquals(0, sub.exit, sub.out + sub.err);
            assertTrue(sub.out.contains("received 500 messages, lost 0, reordered 0, duplicated 0"), sub.out);
            assertTrue(sub.out.contains("checks: 0 with another flow tag, 0 without IBV_WC_IP_CSUM_OK"), sub.out);
        }
        finally
        {
            subscriber.process.destroyForcibly();
        }
    }

    private record Run(int exit, String out, String err)
    {
    }

    /** A child started by {@link #startUnemulated}: its process and where its output goes. */
    private record Launch(Process process, Path out, Path err, List<String> command)
    {
        Run await() throws Exception
        {
            if (!process.waitFor(120, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(command + " did not finish within 120 s");
            }
            return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        }
    }

    private static Run runUnemulated(final String... args) throws Exception
    {
        return startUnemulated(args).await();
    }

    private static Launch startUnemulated(final String... args) throws Exception
    {
        return start(Path.of(System.getProperty("mlx5emu.launcher")).toAbsolutePath().toString(), args);
    }

    private static Run run(final String emulator, final String... args) throws Exception
    {
        return start(emulator, args).await();
    }

    /** This JVM's class path in a child without the emulator's environment, {@code emulator} as the launcher's. */
    private static Launch start(final String emulator, final String... args) throws Exception
    {
        final Path dir = Files.createDirectories(Path.of("target", "launch"));
        final String name = RUNS.incrementAndGet() + "-" + String.join("-", args).replaceAll("[^A-Za-z0-9_-]", "");
        final Path out = dir.resolve(name + ".out");
        final Path err = dir.resolve(name + ".err");
        final List<String> cmd = new ArrayList<>(ChildProcess.javaCommand(Mlx5jTool.class,
            "-D" + EmulatorLaunch.EMULATOR_PROPERTY + "=" + emulator));
        cmd.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        final Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.equals("LD_PRELOAD") || k.equals("SYSFS_PATH") || k.startsWith("MLX5EMU_"));
        env.remove(EmulatorLaunch.OPTIONS_ENV);
        env.put("MLX5EMU_FABRIC", "mlx5j-tool-launch-" + ProcessHandle.current().pid());
        env.put("MLX5EMU_ETH_HOLD_MS", "30000");    // the feed counts every message: a lossless link (FeedToolTest)
        return new Launch(pb.start(), out, err, cmd);
    }
}
