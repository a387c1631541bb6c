// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Compiles a C oracle from src/test/c with gcc (C11, -Wall -Wextra -Werror, ASan + UBSan, any sanitizer report is
 * fatal) into target/c-oracle, once per JVM, and runs it with the given stdin.
 */
final class CProgram
{
    private static final Path SRC = Path.of("src", "test", "c");
    private static final Path OUT = Path.of("target", "c-oracle");
    private static final ConcurrentHashMap<String, Path> BUILT = new ConcurrentHashMap<>();

    private CProgram()
    {
    }

    static List<String> run(final String name, final String stdin)
    {
        final Path exe = BUILT.computeIfAbsent(name, CProgram::compile);
        try
        {
            final Path in = Files.createTempFile(OUT, name, ".in");
            Files.writeString(in, stdin, StandardCharsets.US_ASCII);
            final ProcessBuilder pb = new ProcessBuilder(exe.toAbsolutePath().toString())
                .redirectInput(in.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1");
            final Process p = pb.start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            if (!p.waitFor(60, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                throw new AssertionError(name + " did not exit within 60 s");
            }
            if (p.exitValue() != 0)
            {
                throw new AssertionError(name + " failed with exit " + p.exitValue());
            }
            Files.delete(in);
            return out.lines().toList();
        }
        catch (final IOException | InterruptedException e)
        {
            throw new AssertionError("running " + exe + ": " + e, e);
        }
    }

    private static Path compile(final String name)
    {
        try
        {
            Files.createDirectories(OUT);
            final Path exe = OUT.resolve(name);
            final Process p = new ProcessBuilder("gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g",
                "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", exe.toString(),
                SRC.resolve(name + ".c").toString())
                .redirectErrorStream(true).start();
            final String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                throw new AssertionError("gcc did not finish " + name + ".c within 120 s:\n" + log);
            }
            if (p.exitValue() != 0)
            {
                throw new AssertionError("gcc failed for " + name + ".c:\n" + log);
            }
            return exe;
        }
        catch (final IOException | InterruptedException e)
        {
            throw new AssertionError("compiling " + name + ".c: " + e, e);
        }
    }
}
