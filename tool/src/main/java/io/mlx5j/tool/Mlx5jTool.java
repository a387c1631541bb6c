// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.tool.blocks.BlocksCommand;
import io.mlx5j.tool.feed.FeedCommand;
import io.mlx5j.tool.perf.PerfCommand;
import io.mlx5j.tool.perf.PerfOptions;
import io.mlx5j.tool.pingpong.PingpongCommand;
import io.mlx5j.tool.pingpong.PingpongOptions;
import io.mlx5j.tool.rping.RpingCommand;
import io.mlx5j.tool.rping.RpingOptions;
import io.mlx5j.tool.selfcheck.SelfCheck;
import io.mlx5j.tool.validate.ValidateCommand;
import io.mlx5j.verbs.PortCounters;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code mlx5j} command line: the one dispatcher of its commands ({@code ./mlx5j} at the repository root finds a
 * JDK 25 and the emulator and runs this class; {@code mlx5j --help} lists the commands, {@code mlx5j COMMAND --help}
 * each command's options). A command that needs a device, run where there is none (or with {@code --emulated}),
 * starts itself again on the emulated ConnectX ({@link EmulatorLaunch}).
 * Exit status: 0 success, 1 failure at run time (the message says what failed), 2 bad command line (unknown command
 * or option; the message names it).
 */
public final class Mlx5jTool
{
    static final String USAGE = String.join("\n",
        "usage: mlx5j COMMAND [options]      (mlx5j COMMAND --help: the command's options)",
        "  devices [-d NAME]                list RDMA devices: GUID, port state, link layer, LID, GIDs",
        "  perf TEST [options]              perftest-style benchmark on the Java direct path (mlx5j perf --help)",
        "  pingpong [--ud] [options] [HOST] the ibv_rc_pingpong / ibv_ud_pingpong protocol (mlx5j pingpong --help)",
        "  rping -s|-c [options]            rping's protocol over rdma_cm (mlx5j rping --help)",
        "  feed publish|subscribe [options] multicast market data over raw Ethernet (mlx5j feed --help)",
        "  blocks serve|bench [options]     storage demo: checksummed blocks by RDMA READ/WRITE (mlx5j blocks --help)",
        "  validate [--json FILE]           check rdma-core, the device and RC traffic (mlx5j validate --help)",
        "  selfcheck                        print the encoded WQEs of a few work requests (pure Java, no device)",
        "  decode wqe|rwqe|srq-wqe|cqe HEX  a WQE or CQE in hex, with PRM field names (mlx5j decode --help)",
        "  aot create|run [--cache F] CMD   JDK 25's AOT cache: train it, run with it (mlx5j aot --help)",
        "  help, --help, -h                 this list",
        "Commands that open a device run on the emulated ConnectX (emulator/mlx5emu) when there is no RDMA device, or",
        "with --emulated; MLX5J_EMU_OPTS adds emulator options (e.g. --log).");

    static final String SELFCHECK_USAGE = "usage: mlx5j selfcheck   (prints the encoded bytes of 7 send WQEs and "
        + "1 receive WQE, no device needed)";

    private Mlx5jTool()
    {
    }

    public static void main(final String[] args)
    {
        final boolean mlx5 = EmulatorLaunch.realDevice();
        final String emulated = EmulatorLaunch.reason(args, mlx5, mlx5 ? List.of() : EmulatorLaunch.otherDevices());
        final int status = emulated != null ? EmulatorLaunch.run(args, emulated, System.err)
            : run(args, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Runs one command; returns the exit status. Tests call this in-process. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length == 0)
        {
            out.println(USAGE);
            return 0;
        }
        final String command = args[0];
        final String[] rest = Arrays.copyOfRange(args, 1, args.length);
        final boolean help = Arrays.asList(rest).contains("--help") || Arrays.asList(rest).contains("-h");
        try
        {
            switch (command)
            {
                case "devices":
                    if (help)
                    {
                        out.println(DevicesCommand.USAGE);
                        return 0;
                    }
                    return DevicesCommand.run(rest, out);
                case "perf":
                    if (help)
                    {
                        out.println(PerfOptions.usage(rest));
                        return 0;
                    }
                    return PerfCommand.run(PerfOptions.parse(rest), out, err);
                case "pingpong":
                    if (help)
                    {
                        out.println(PingpongOptions.USAGE);
                        return 0;
                    }
                    return PingpongCommand.run(PingpongOptions.parse(rest), out, err);
                case "rping":
                    if (Arrays.asList(rest).contains("--help"))
                    {
                        out.println(RpingOptions.USAGE);
                        return 0;
                    }
                    return RpingCommand.run(RpingOptions.parse(rest), out, err);
                case "feed":
                    if (help)
                    {
                        out.println(FeedCommand.USAGE);
                        return 0;
                    }
                    return FeedCommand.run(FeedCommand.parse(rest), out, err);
                case "blocks":
                    if (help)
                    {
                        out.println(BlocksCommand.USAGE);
                        return 0;
                    }
                    return BlocksCommand.run(rest, out, err);
                case "validate":
                    if (help)
                    {
                        out.println(ValidateCommand.USAGE);
                        return 0;
                    }
                    return ValidateCommand.run(rest, out);
                case "selfcheck":
                    if (rest.length > 0)
                    {
                        if (help)
                        {
                            out.println(SELFCHECK_USAGE);
                            return 0;
                        }
                        throw new UsageException("selfcheck takes no options ('" + rest[0] + "')");
                    }
                    SelfCheck.run(out);
                    return 0;
                case "decode":
                    if (help)
                    {
                        out.println(DecodeCommand.USAGE);
                        return 0;
                    }
                    return DecodeCommand.run(rest, System.in, out);
                case "aot":
                    // its own --help only: one after the command is the command's
                    return AotCommand.run(rest, out, err);
                case "help", "-h", "--help":
                    out.println(USAGE);
                    return 0;
                default:
                    throw new UsageException("unknown command '" + command + "'");
            }
        }
        catch (final UsageException ex)
        {
            err.println("mlx5j: " + ex.getMessage());
            err.println(switch (command)
            {
                case "perf" -> PerfOptions.usage(rest);
                case "pingpong" -> PingpongOptions.USAGE;
                case "rping" -> RpingOptions.USAGE;
                case "devices" -> DevicesCommand.USAGE;
                case "feed" -> FeedCommand.USAGE;
                case "blocks" -> BlocksCommand.USAGE;
                case "validate" -> ValidateCommand.USAGE;
                case "selfcheck" -> SELFCHECK_USAGE;
                case "decode" -> DecodeCommand.USAGE;
                case "aot" -> AotCommand.USAGE;
                default -> USAGE;
            });
            return 2;
        }
        catch (final UncheckedIOException | IllegalStateException | IllegalArgumentException ex)
        {
            err.println("mlx5j: " + command + " failed: " + ex.getMessage());
            return 1;
        }
        catch (final RuntimeException ex)
        {
            err.println("mlx5j: " + command + " failed: " + ex);
            return 1;
        }
    }

    /**
     * Prints the port's counters ({@link PortCounters}), the NIC's own count of what it sent, received and dropped, as
     * the last lines of a run; or, when sysfs has none, the reason.
     *
     * @param device the device name
     * @param port   the port number
     * @param out    where to print
     */
    public static void printPortCounters(final String device, final int port, final PrintStream out)
    {
        out.println("port counters of " + device + " port " + port + " (sysfs counters/ and hw_counters/):");
        try
        {
            out.print(PortCounters.of(device, port).read().format());
        }
        catch (final IllegalStateException e)
        {
            out.println("  unreadable: " + e.getMessage());
        }
    }

    /**
     * " (emulated ConnectX-N through emulator/mlx5emu; ...)" when this process runs on the emulated device, naming the
     * generation of its profile (MLX5EMU_PROFILE, which the launcher and the build's test setup always export), else
     * "". Any thread; reads only the environment.
     *
     * @return the note, or "" on hardware
     */
    public static String platform()
    {
        return isEmulated() ? " (emulated " + emulatedModel(System.getenv("MLX5EMU_PROFILE"))
            + " through emulator/mlx5emu; no RDMA hardware in use)" : "";
    }

    /** The part an emulator profile models (emulator/src/kernel/profile.c); the emulator's default is cx5. */
    static String emulatedModel(final String profile)
    {
        return switch (profile == null || profile.isEmpty() ? "cx5" : profile)
        {
            case "cx4lx" -> "ConnectX-4 Lx";
            case "cx5" -> "ConnectX-5";
            case "cx6dx" -> "ConnectX-6 Dx";
            case "cx7" -> "ConnectX-7";
            default -> "ConnectX (unknown profile '" + profile + "')";
        };
    }

    /**
     * Whether the emulator is LD_PRELOADed into this process (emulator/mlx5emu or surefire's environment).
     *
     * @return true on the emulated device
     */
    public static boolean isEmulated()
    {
        final String preload = System.getenv("LD_PRELOAD");
        return preload != null && preload.contains("libmlx5emu");
    }
}
