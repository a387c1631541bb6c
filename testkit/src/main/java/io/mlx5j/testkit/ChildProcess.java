package io.mlx5j.tool;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Test plumbing for runs on the emulated device: the strict-mode violation count of this JVM's engine, child
 * processes under the same environment (surefire's LD_PRELOAD/SYSFS_PATH/MLX5EMU_* are inherited, so a C example
 * started here joins this JVM's emulated fabric), and captured tool output.
 */
public final class Emulated
{
    private static final MethodHandle STRICT_VIOLATIONS;

    static
    {
        final String preload = System.getenv("LD_PRELOAD");
        if (preload == null || !preload.contains("libmlx5emu.so"))
        {
            throw new IllegalStateException("tests must run with the emulator preloaded; LD_PRELOAD=" + preload);
        }
        String lib = null;
        for (final String part : preload.split("[: ]"))
        {
            if (part.endsWith("libmlx5emu.so"))
            {
                lib = part;
            }
        }
        // dlopen of an LD_PRELOADed library returns the copy already in the process
        final SymbolLookup lookup = SymbolLookup.libraryLookup(Path.of(lib), Arena.global());
        STRICT_VIOLATIONS = Linker.nativeLinker().downcallHandle(lookup.find("mlx5emu_strict_violations")
            .orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG));
    }

    private Emulated()
    {
    }

    /** Driver-rule violations the engine of this process counted (strict mode is on in this module's tests). */
    public static long strictViolations()
    {
        assertEquals("1", System.getenv("MLX5EMU_STRICT"), "strict mode must be on");
        try
        {
            return (long) STRICT_VIOLATIONS.invokeExact();
        }
        catch (final Throwable t)
        {
            throw new AssertionError(t);
        }
    }

    /** A TCP port nobody listens on right now. */
    public static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    /** A finished child process: exit status and its output. */
    public record Result(int exit, String out, String err)
    {
        public List<String> lines()
        {
            return out.lines().toList();
        }

        public void assertClean(final String what)
        {
            assertClean(what, "");
        }

        /** Exit 0 and no strict-mode report; {@code peer} (the other side's output) goes into failure messages. */
        public void assertClean(final String what, final String peer)
        {
            assertEquals(0, exit, what + " failed:\n" + out + err + "\n--- the mlx5j side:\n" + peer);
            assertFalse(err.contains("STRICT"), what + " broke driver rules on the emulated device:\n" + err);
            assertFalse(err.contains("strict-mode violations"), what + ":\n" + err);
        }

        /**
         * As {@link #assertClean(String, String)}, for the unmodified rping, which has a race of its own: after the
         * DISCONNECTED event its CM thread calls rdma_get_cm_event again while the main thread destroys the channel,
         * and if the close wins, perror + exit(-1) end the process with 255 ("Bad file descriptor", or "Invalid
         * argument" when the descriptor number was reused). Only then is 255 accepted; the callers still check every
         * ping rping printed, so a run that stopped early fails there. emulator/test/kernel/t_rdmacm_rping.sh runs
         * such a pair again instead.
         */
        public void assertCleanRping(final String what, final String peer)
        {
            final boolean race = exit == 255 &&
                err.matches("(?s).*rdma_get_cm_event: (Bad file descriptor|Invalid argument).*");
            new Result(race ? 0 : exit, out, err).assertClean(what, peer);
        }
    }

    /** A child started with this JVM's environment, output to files under target/ (no pipe can fill up). */
    public static final class Child
    {
        private final Process process;
        private final Path out;
        private final Path err;
        private final List<String> command;

        public Child(final String name, final List<String> command) throws IOException
        {
            final Path dir = Path.of("target", "interop");
            Files.createDirectories(dir);
            this.out = dir.resolve(name + ".out");
            this.err = dir.resolve(name + ".err");
            this.command = command;
            this.process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        }

        /** Waits up to {@code seconds}; a child still running then is killed and the test fails. */
        public Result await(final long seconds) throws Exception
        {
            if (!process.waitFor(seconds, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(command + " did not finish within " + seconds + " s:\n" + Files.readString(out)
                    + Files.readString(err));
            }
            return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
        }

        public void kill()
        {
            process.destroyForcibly();
        }
    }

    /** Output captured from an in-process tool run; readable while the tool still runs. */
    public static final class Capture
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
}
