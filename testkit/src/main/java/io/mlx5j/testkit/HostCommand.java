// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A helper program run on the host, outside the emulated device: gcc, and the C reference programs tests compile
 * from their {@code src/test/c} (the judges of byte parity, the probes of C layouts). The emulator library is taken
 * out of its {@code LD_PRELOAD}: such a program needs no device, and with the library in it every {@code open},
 * {@code ioctl} and {@code mmap} of a compiler would pass through the emulated kernel's interposers.
 * <p>
 * Threads: any thread; each call waits for its own process.
 */
public final class HostCommand
{
    /** How long a helper program may run before the test fails. */
    public static final long TIMEOUT_SECONDS = 60;

    private HostCommand()
    {
    }

    /**
     * Compiles the C program {@code src/test/c/NAME.c} of the module under test (paths are relative to the working
     * directory, the module's under surefire) into {@code target/NAME} with gcc, warnings as errors.
     *
     * @param name  the program's name, without {@code .c}
     * @param flags more gcc options, before the source ({@code -std=c11}, {@code -O1}, {@code -I DIR}...)
     * @return the executable
     * @throws AssertionError when gcc fails (the message carries its diagnostics) or {@code target} cannot be made
     */
    public static Path gcc(final String name, final String... flags)
    {
        final Path exe = Path.of("target", name);
        try
        {
            Files.createDirectories(exe.getParent());
        }
        catch (final IOException ex)
        {
            throw new AssertionError("target: " + ex, ex);
        }
        final List<String> command = new ArrayList<>(List.of("gcc", "-Wall", "-Wextra", "-Werror"));
        command.addAll(List.of(flags));
        command.addAll(List.of("-o", exe.toString(), Path.of("src", "test", "c", name + ".c").toString()));
        run(command);
        return exe;
    }

    /**
     * Runs {@code command} with nothing on its standard input.
     *
     * @param command the program and its arguments
     * @return its standard output and standard error, merged, as UTF-8
     * @throws AssertionError when it cannot start, exits non-zero or runs longer than {@value #TIMEOUT_SECONDS}
     *                        seconds; the message carries its output
     */
    public static String run(final List<String> command)
    {
        return run(command, "");
    }

    /**
     * Runs {@code command} with {@code input} on its standard input. Input and output go through temporary files,
     * so neither side can block on a full pipe and the timeout holds whatever the program does.
     *
     * @param command the program and its arguments
     * @param input   its standard input, as UTF-8
     * @return its standard output and standard error, merged, as UTF-8
     * @throws AssertionError when it cannot start, exits non-zero or runs longer than {@value #TIMEOUT_SECONDS}
     *                        seconds; the message carries its output
     */
    public static String run(final List<String> command, final String input)
    {
        Path in = null;
        Path out = null;
        try
        {
            in = Files.createTempFile("mlx5j-host-", ".in");
            out = Files.createTempFile("mlx5j-host-", ".out");
            Files.writeString(in, input, StandardCharsets.UTF_8);
            final ProcessBuilder pb = new ProcessBuilder(command).redirectInput(in.toFile())
                .redirectOutput(out.toFile()).redirectErrorStream(true);
            pb.environment().remove("LD_PRELOAD");
            final Process p = pb.start();
            final boolean finished = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!finished)
            {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            final String text = Files.readString(out, StandardCharsets.UTF_8);
            if (!finished)
            {
                throw new AssertionError(command + " did not finish within " + TIMEOUT_SECONDS + " s: " + text);
            }
            if (p.exitValue() != 0)
            {
                throw new AssertionError(command + " failed with exit " + p.exitValue() + ": " + text);
            }
            return text;
        }
        catch (final IOException ex)
        {
            throw new AssertionError(command + ": " + ex, ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(command + " was interrupted", ex);
        }
        finally
        {
            delete(in);
            delete(out);
        }
    }

    private static void delete(final Path file)
    {
        try
        {
            if (file != null)
            {
                Files.deleteIfExists(file);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
