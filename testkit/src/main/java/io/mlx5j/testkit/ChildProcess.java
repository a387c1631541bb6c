// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A program started by a test on the same emulated fabric: it inherits this JVM's environment (surefire's
 * {@code LD_PRELOAD}, {@code SYSFS_PATH} and {@code MLX5EMU_*}), so an unmodified C tool (rping, perftest, the
 * pingpong examples, mckey) or a second JVM started here joins this JVM's fabric. Its output goes to files,
 * {@code target/interop/NAME.out} and {@code .err} under the working directory (the module's, under surefire):
 * no pipe can fill up and stall it, the files can be read while it runs, and they stay for a failure's post-mortem.
 * <p>
 * Threads: the instance may be shared; {@link Process} is thread-safe, and the files are only read.
 */
public final class ChildProcess
{
    private final Process process;
    private final Path out;
    private final Path err;
    private final List<String> command;

    /**
     * Starts {@code command} with this JVM's environment.
     *
     * @param name    names its output files; unique per test run
     * @param command the program and its arguments
     * @throws IOException when the directory cannot be made or the program cannot start
     */
    public ChildProcess(final String name, final List<String> command) throws IOException
    {
        this(name, command, Map.of());
    }

    /**
     * Starts {@code command} with this JVM's environment plus {@code environment} (an emulator knob such as
     * {@code MLX5EMU_LOG=1} for this child alone).
     *
     * @param name        names its output files; unique per test run
     * @param command     the program and its arguments
     * @param environment variables to add or replace
     * @throws IOException when the directory cannot be made or the program cannot start
     */
    public ChildProcess(final String name, final List<String> command, final Map<String, String> environment)
        throws IOException
    {
        final Path dir = Path.of("target", "interop");
        Files.createDirectories(dir);
        this.out = dir.resolve(name + ".out");
        this.err = dir.resolve(name + ".err");
        this.command = command;
        final ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(environment);
        this.process = pb.start();
    }

    /**
     * The command line of a child JVM that runs {@code main} from this JVM's class path, with the native-access
     * options every mlx5j test JVM has ({@code --enable-native-access=ALL-UNNAMED --illegal-native-access=deny}).
     *
     * @param main    the class whose {@code main} runs
     * @param options more JVM options (system properties...), placed before the class path
     * @return the command, for {@link #ChildProcess(String, List)} or a {@link ProcessBuilder}
     */
    public static List<String> javaCommand(final Class<?> main, final String... options)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("--illegal-native-access=deny");
        command.addAll(List.of(options));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        return command;
    }

    /**
     * The running process, for its pid, signals and liveness.
     *
     * @return the process
     */
    public Process process()
    {
        return process;
    }

    /**
     * The file its standard output goes to.
     *
     * @return {@code target/interop/NAME.out}
     */
    public Path out()
    {
        return out;
    }

    /**
     * The file its standard error goes to.
     *
     * @return {@code target/interop/NAME.err}
     */
    public Path err()
    {
        return err;
    }

    /**
     * Waits for the child to exit. A child still running after {@code seconds} is killed and the test fails.
     *
     * @param seconds how long to wait
     * @return its exit status and output
     * @throws AssertionError       when it did not finish in time (the message carries its output)
     * @throws IOException          when its output files cannot be read
     * @throws InterruptedException when this thread is interrupted while it waits
     */
    public Result await(final long seconds) throws IOException, InterruptedException
    {
        if (!process.waitFor(seconds, TimeUnit.SECONDS))
        {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(command + " did not finish within " + seconds + " s:\n" + Files.readString(out)
                + Files.readString(err));
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** Kills the child (SIGKILL, which also ends a stopped one) without waiting. */
    public void kill()
    {
        process.destroyForcibly();
    }

    /**
     * A finished child: exit status and its output.
     *
     * @param exit its exit status
     * @param out  its standard output
     * @param err  its standard error
     */
    public record Result(int exit, String out, String err)
    {
        /**
         * Its standard output as lines.
         *
         * @return the lines, without terminators
         */
        public List<String> lines()
        {
            return out.lines().toList();
        }

        /**
         * {@link #assertClean(String, String)} with nothing from a peer.
         *
         * @param what names the child in failure messages
         * @throws AssertionError when it failed or broke a driver rule
         */
        public void assertClean(final String what)
        {
            assertClean(what, "");
        }

        /**
         * Exit 0 and no strict-mode report on its standard error ({@link EmulatedDevice#strictReports}).
         *
         * @param what names the child in failure messages
         * @param peer the other side's output (the mlx5j side of an interop run), added to a failure's message
         * @throws AssertionError        when it failed or broke a driver rule
         * @throws IllegalStateException when strict mode is off in this JVM, which the child inherited: it would
         *                               have reported nothing, and a clean stderr would prove nothing
         */
        public void assertClean(final String what, final String peer)
        {
            if (!EmulatedDevice.strictMode())
            {
                throw new IllegalStateException("strict mode is off (MLX5EMU_STRICT): " + what + " reported nothing");
            }
            if (exit != 0)
            {
                throw new AssertionError(what + " failed (exit " + exit + "):\n" + out + err
                    + "\n--- the mlx5j side:\n" + peer);
            }
            if (!EmulatedDevice.strictReports(err).isEmpty())
            {
                throw new AssertionError(what + " broke driver rules on the emulated device:\n" + err);
            }
        }
    }
}
