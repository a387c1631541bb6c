// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.tool.perf.PerfOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs a command on the emulated ConnectX when there is no RDMA device (or {@code --emulated} asks for it): the
 * dispatcher starts this JVM's own command line again under {@code emulator/mlx5emu}, which writes the emulated
 * sysfs tree and preloads {@code libmlx5emu.so} (it has to be loaded before libibverbs, hence a new process). The
 * {@code ./mlx5j} launcher only says where the emulator is ({@code -Dmlx5j.emulator}); which commands need a device,
 * and which need an Ethernet link, is decided here, with the command line that decides it.
 */
final class EmulatorLaunch
{
    /** System property the launcher sets: the path of {@code emulator/mlx5emu}. */
    static final String EMULATOR_PROPERTY = "mlx5j.emulator";
    /** Extra mlx5emu options, e.g. {@code "--log"} or {@code "--link eth"} (whitespace-separated). */
    static final String OPTIONS_ENV = "MLX5J_EMU_OPTS";
    /** Set in the child's environment: a child that still finds no emulator must not start another one. */
    static final String CHILD_ENV = "MLX5J_EMULATED_CHILD";
    private static final Path SYSFS_DEVICES = Path.of("/sys/class/infiniband");
    /** The Linux driver of ConnectX-4 and later PCI functions (drivers/net/ethernet/mellanox/mlx5/core). */
    static final String MLX5_DRIVER = "mlx5_core";

    private EmulatorLaunch()
    {
    }

    /** The commands that open a device (selfcheck and help do not). */
    static boolean needsDevice(final String command)
    {
        return switch (command)
        {
            case "devices", "perf", "pingpong", "rping", "feed", "validate", "blocks" -> true;
            default -> false;
        };
    }

    /** Raw Ethernet needs an Ethernet port: the feed and the raw perf tests get one on the emulated device. */
    static boolean needsEthernet(final String command, final String[] rest)
    {
        return command.equals("feed") || command.equals("perf") && PerfOptions.isRaw(rest);
    }

    /** The emulator to run {@code args} on, or null to run here: a device command, not yet emulated, no device. */
    static String reason(final String[] args, final boolean realDevice)
    {
        return reason(args, realDevice, List.of());
    }

    /**
     * As {@link #reason(String[], boolean)}, naming the RDMA devices found that are not mlx5 ({@code others}, e.g.
     * "rxe0 (driver rdma_rxe)"): they do not count, mlx5j drives ConnectX rings directly.
     */
    static String reason(final String[] args, final boolean realDevice, final List<String> others)
    {
        if (args.length == 0 || !needsDevice(args[0]) || Mlx5jTool.isEmulated())
        {
            return null;
        }
        if (Arrays.asList(args).contains("--emulated"))
        {
            return "--emulated: using the emulated ConnectX (emulator/mlx5emu)";
        }
        return realDevice ? null : noDevice(others);
    }

    /** Why the emulator stands in: no RDMA device at all, or only ones mlx5j cannot drive (named). */
    static String noDevice(final List<String> others)
    {
        return others.isEmpty() ? "no RDMA device found; using the emulated ConnectX (emulator/mlx5emu)"
            : "no mlx5 device found (" + String.join(", ", others) + " cannot be used: mlx5j needs an mlx5 device, "
            + "ConnectX-4 or later, driver mlx5_core); using the emulated ConnectX (emulator/mlx5emu)";
    }

    /** An mlx5 device exists: a /sys/class/infiniband entry whose PCI function is bound to mlx5_core. */
    static boolean realDevice()
    {
        return !devices(SYSFS_DEVICES, true).isEmpty();
    }

    /** The RDMA devices of this machine that mlx5j cannot drive, as "name (driver X)". */
    static List<String> otherDevices()
    {
        return devices(SYSFS_DEVICES, false);
    }

    /**
     * The entries of a /sys/class/infiniband directory whose driver is mlx5_core ({@code mlx5} true: their names) or
     * is not ({@code mlx5} false: "name (driver X)"). The driver is the name of the {@code device/driver} link, as
     * Linux binds a PCI function (rxe and siw devices have no PCI function: "no driver").
     */
    static List<String> devices(final Path classInfiniband, final boolean mlx5)
    {
        final List<String> found = new ArrayList<>();
        if (!Files.isDirectory(classInfiniband))
        {
            return found;
        }
        try (Stream<Path> entries = Files.list(classInfiniband))
        {
            for (final Path entry : entries.sorted().toList())
            {
                final String driver = driver(entry);
                final boolean isMlx5 = MLX5_DRIVER.equals(driver);
                if (isMlx5 == mlx5)
                {
                    found.add(mlx5 ? entry.getFileName().toString()
                        : entry.getFileName() + " (" + (driver == null ? "no driver" : "driver " + driver) + ")");
                }
            }
        }
        catch (final IOException ex)
        {
            return found;
        }
        return found;
    }

    /** The name of the driver bound to the device's function, or null. */
    static String driver(final Path classEntry)
    {
        try
        {
            final Path link = classEntry.resolve("device").resolve("driver");
            return Files.exists(link) ? link.toRealPath().getFileName().toString() : null;
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /**
     * The mlx5emu command line that runs {@code args} again: mlx5emu, its options (from {@link #OPTIONS_ENV}, plus
     * {@code --link eth} for raw Ethernet unless the options name a link), then this JVM's java, its options and
     * class path, the dispatcher and the arguments unchanged.
     */
    static List<String> command(final String emulator, final String options, final List<String> jvm,
        final String classPath, final String[] args)
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(emulator);
        final List<String> opts = options == null || options.isBlank() ? List.of()
            : Arrays.asList(options.trim().split("\\s+"));
        cmd.addAll(opts);
        final boolean linkGiven = opts.stream().anyMatch(o -> o.equals("--link") || o.startsWith("--link="));
        if (!linkGiven && needsEthernet(args[0], Arrays.copyOfRange(args, 1, args.length)))
        {
            cmd.add("--link");
            cmd.add("eth");
        }
        cmd.add("--");
        cmd.addAll(jvm);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(Mlx5jTool.class.getName());
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    /** Runs {@code args} in a child on the emulator, its output on this process's streams; returns its exit status. */
    static int run(final String[] args, final String why, final PrintStream err)
    {
        if (System.getenv(CHILD_ENV) != null)
        {
            err.println("mlx5j: " + args[0] + " failed: started under emulator/mlx5emu, but libmlx5emu.so is not in "
                + "LD_PRELOAD");
            return 1;
        }
        final String emulator = emulator(err);
        if (emulator == null)
        {
            return 1;
        }
        err.println("mlx5j: " + why);
        return await(new ProcessBuilder(command(emulator, System.getenv(OPTIONS_ENV), jvm(List.of()),
            System.getProperty("java.class.path"), args)), true, args[0], err);
    }

    /**
     * The emulator the launcher named, or null when there is none to run (the reason then printed on {@code err}).
     */
    static String emulator(final PrintStream err)
    {
        final String emulator = System.getProperty(EMULATOR_PROPERTY);
        if (emulator == null || !Files.isExecutable(Path.of(emulator)))
        {
            err.println("mlx5j: no RDMA device found and no emulator to run on (" + EMULATOR_PROPERTY + "="
                + emulator + "); start the tool through ./mlx5j");
            return null;
        }
        return emulator;
    }

    /**
     * This JVM's java command and options ({@code -XX:...}, {@code -D...}, including those the JVM took from
     * JDK_JAVA_OPTIONS and JAVA_TOOL_OPTIONS) for a child that runs the dispatcher again, less those for which
     * {@code drop} says true.
     */
    static List<String> jvm(final List<String> drop)
    {
        final List<String> jvm = new ArrayList<>();
        jvm.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String option : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (drop.stream().noneMatch(option::startsWith))
            {
                jvm.add(option);
            }
        }
        return jvm;
    }

    /**
     * Starts {@code pb} with this process's streams, {@link #CHILD_ENV} set if {@code emulated}, and waits for it; a
     * TERM or an INT to this process ends the child too (it has the terminal's INT as well).
     *
     * @return the child's exit status, or 1 if it could not start (said on {@code err})
     */
    static int await(final ProcessBuilder pb, final boolean emulated, final String command, final PrintStream err)
    {
        pb.inheritIO();
        if (emulated)
        {
            final Map<String, String> env = pb.environment();
            env.put(CHILD_ENV, "1");
        }
        System.out.flush();
        err.flush();
        final Process child;
        try
        {
            child = pb.start();
        }
        catch (final IOException ex)
        {
            err.println("mlx5j: " + command + " failed: cannot start " + pb.command().get(0) + ": " + ex.getMessage());
            return 1;
        }
        final Thread reaper = new Thread(child::destroy, "mlx5j-child");
        Runtime.getRuntime().addShutdownHook(reaper);
        try
        {
            return child.waitFor();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            child.destroy();
            return 1;
        }
        finally
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(reaper);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // the hook runs or ran: nothing to remove
            }
        }
    }
}
