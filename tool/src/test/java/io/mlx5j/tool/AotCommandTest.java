// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.spi.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code mlx5j aot create|run}: the dispatcher in a JVM of its own, without the emulator's environment (as
 * {@code ./mlx5j} starts it), on a class path of jars (an AOT cache takes classes from jars only: this JVM's class
 * directories are packed into jars first). The training run and the run each start one more JVM, under the emulator
 * when the command needs a device; the JVM's own class-loading log says whether the run took the tool's classes
 * from the cache. Each JVM is bounded by {@link #LIMIT_SECONDS}.
 */
class AotCommandTest
{
    private static final long LIMIT_SECONDS = 240;
    private static final AtomicInteger RUNS = new AtomicInteger();

    /**
     * A cache made by a short {@code perf write_lat --loopback} on the emulated device is mapped by the run's JVM:
     * the tool's classes, the measuring loops among them, come from it ("source: shared objects file"), while the
     * dispatcher, which gets no cache option, reads its own from the jar.
     */
    @Test
    void aCacheMadeByATrainingRunIsMappedByTheRun(@TempDir final Path dir) throws Exception
    {
        final String cp = jarClassPath(dir.resolve("cp"));
        final Path cache = dir.resolve("perf.aot");
        final Run create = run(cp, List.of(), "aot", "create", "--cache", cache.toString(), "--", "perf",
            "write_lat", "--loopback", "-n", "200", "--no-progress");
        assertEquals(0, create.exit, create.out + create.err);
        assertTrue(create.err.contains("mlx5j: no RDMA device found; using the emulated ConnectX"), create.err);
        assertTrue(create.out.contains(" 200 samples (round trip / 2)"), create.out);
        assertTrue(Files.size(cache) > 1_000_000, "cache of " + Files.size(cache) + " bytes");
        assertTrue(create.out.contains("mlx5j: AOT cache " + cache + " made (" + Files.size(cache) + " bytes) by the "
            + "training run 'perf write_lat --loopback -n 200 --no-progress'; use it: mlx5j aot run --cache " + cache
            + " -- perf write_lat --loopback -n 200 --no-progress"), create.out);
        final String stamp = Files.readString(AotCommand.stampOf(cache), StandardCharsets.UTF_8);
        assertTrue(stamp.contains("\njdk=" + System.getProperty("java.home") + " "
            + System.getProperty("java.vm.version") + "\n"), stamp);
        assertEquals(cp.split(":").length, stamp.lines().filter(l -> l.startsWith("jar=")).count(), stamp);

        final Run used = run(cp, List.of("-Xlog:class+load=info"), "aot", "run", "--cache", cache.toString(), "--",
            "perf", "write_lat", "--loopback", "-n", "300", "--no-progress");
        assertEquals(0, used.exit, used.out + used.err);
        assertTrue(used.err.contains("mlx5j: AOT cache " + cache + " (made "), used.err);
        assertTrue(used.out.contains(" 300 samples (round trip / 2); data check: reply 1 bytes ok"), used.out);
        assertTrue(used.out.contains("io.mlx5j.tool.Mlx5jTool source: file:"), "the dispatcher reads the jar");
        assertTrue(used.out.contains("io.mlx5j.tool.Mlx5jTool source: shared objects file"), "the run maps the cache");
        assertTrue(used.out.contains("io.mlx5j.tool.perf.PerfLoops source: shared objects file"), "loops from it");
        assertFalse(used.out.contains("io.mlx5j.tool.perf.PerfLoops source: file:"), "loops read from the jar");
    }

    /**
     * A jar rebuilt after the cache was made: the JVM itself would map the cache and run the old classes (JDK 25.0.3,
     * JDK-8377932), so the run is refused before it starts, naming the jar and how to make the cache again.
     */
    @Test
    void aRebuiltJarIsRefused(@TempDir final Path dir) throws Exception
    {
        final String cp = jarClassPath(dir.resolve("cp"));
        final Path cache = dir.resolve("self.aot");
        final Run create = run(cp, List.of(), "aot", "create", "--cache", cache.toString(), "--", "selfcheck");
        assertEquals(0, create.exit, create.out + create.err);
        final Run before = run(cp, List.of(), "aot", "run", "--cache", cache.toString(), "selfcheck");
        assertEquals(0, before.exit, before.out + before.err);
        assertTrue(before.out.startsWith("mlx5j wqe-builder self-check"), before.out);

        final Path toolJar = Path.of(cp.split(":")[0]);
        final Path extra = Files.writeString(dir.resolve("rebuilt.txt"), "another build");
        jar("--update", "--file", toolJar.toString(), "-C", dir.toString(), extra.getFileName().toString());
        final Run after = run(cp, List.of(), "aot", "run", "--cache", cache.toString(), "selfcheck");
        assertEquals(1, after.exit, after.out + after.err);
        assertEquals("", after.out);
        assertTrue(after.err.startsWith("mlx5j: aot run: the AOT cache " + cache + " was made from another "
            + toolJar + " (SHA-256 "), after.err);
        assertTrue(after.err.endsWith(" now; the JVM would run the classes of the old one); make it again: mlx5j aot "
            + "create --cache " + cache + " -- selfcheck\n"), after.err);
    }

    /**
     * What the stamp guards against but a test cannot make (another JDK), a cache without a stamp, and a damaged
     * cache, which the JVM refuses at start ({@code -XX:AOTMode=on}) and the dispatcher names as the cause.
     */
    @Test
    void anotherJdkNoStampOrADamagedCacheIsSaidSo(@TempDir final Path dir) throws Exception
    {
        final String cp = jarClassPath(dir.resolve("cp"));
        final Path cache = dir.resolve("self.aot");
        assertEquals(0, run(cp, List.of(), "aot", "create", "--cache", cache.toString(), "--", "selfcheck").exit);
        final Path stamp = AotCommand.stampOf(cache);
        final String good = Files.readString(stamp);

        Files.writeString(stamp, good.replaceFirst("\njdk=[^\n]*", "\njdk=/opt/jdk-25.0.1 25.0.1+8-LTS"));
        final Run jdk = run(cp, List.of(), "aot", "run", "--cache", cache.toString(), "--", "selfcheck");
        assertEquals(1, jdk.exit, jdk.out + jdk.err);
        assertEquals("mlx5j: aot run: the AOT cache " + cache + " was made by the JDK /opt/jdk-25.0.1 25.0.1+8-LTS, "
            + "this is " + System.getProperty("java.home") + " " + System.getProperty("java.vm.version")
            + "; make it again: mlx5j aot create --cache " + cache + " -- selfcheck\n", jdk.err);

        Files.delete(stamp);
        final Run none = run(cp, List.of(), "aot", "run", "--cache", cache.toString(), "--", "selfcheck");
        assertEquals(1, none.exit, none.out + none.err);
        assertTrue(none.err.startsWith("mlx5j: aot run: " + cache + " has no self.aot.stamp"), none.err);

        Files.writeString(stamp, good);
        final byte[] bytes = Files.readAllBytes(cache);
        for (int i = 0; i < 4096; i++)
        {
            bytes[i] ^= 0x5A;
        }
        Files.write(cache, bytes);
        final Run damaged = run(cp, List.of(), "aot", "run", "--cache", cache.toString(), "--", "selfcheck");
        assertEquals(1, damaged.exit, damaged.out + damaged.err);
        assertTrue(damaged.err.contains("mlx5j: aot run: the JVM could not map the AOT cache " + cache
            + " (The AOT cache has a bad magic number"), damaged.err);
        assertTrue(damaged.err.endsWith("; make it again: mlx5j aot create --cache " + cache + " -- selfcheck\n"),
            damaged.err);
    }

    /** A training run that fails leaves no cache (and no stamp) behind, and the tool exits with its status. */
    @Test
    void aFailedTrainingRunLeavesNoCache(@TempDir final Path dir) throws Exception
    {
        final String cp = jarClassPath(dir.resolve("cp"));
        final Path cache = dir.resolve("bad.aot");
        final Run create = run(cp, List.of(), "aot", "create", "--cache", cache.toString(), "--", "selfcheck",
            "--frobnicate");
        assertEquals(2, create.exit, create.out + create.err);
        assertTrue(create.err.contains("mlx5j: selfcheck takes no options ('--frobnicate')"), create.err);
        assertTrue(create.err.endsWith("mlx5j: aot create: the training run exited with status 2; no cache made\n"),
            create.err);
        assertFalse(Files.exists(cache));
        assertFalse(Files.exists(AotCommand.stampOf(cache)));
    }

    /** Bad command lines (status 2), and a class path with directories, which cannot make a cache (status 1). */
    @Test
    void usageAndClassDirectories(@TempDir final Path dir)
    {
        for (final List<String> bad : List.of(List.of("aot"), List.of("aot", "make"), List.of("aot", "run"),
            List.of("aot", "create", "--cache"), List.of("aot", "run", "--frob", "selfcheck"),
            List.of("aot", "run", "--", "aot", "run", "selfcheck")))
        {
            final Capture out = new Capture();
            assertEquals(2, Mlx5jTool.run(bad.toArray(String[]::new), out.stream, out.stream), bad + out.text());
            assertTrue(out.text().contains("\n" + AotCommand.USAGE), out.text());
        }
        final Capture help = new Capture();
        assertEquals(0, Mlx5jTool.run(new String[] {"aot", "create", "--help"}, help.stream, help.stream));
        assertEquals(AotCommand.USAGE + "\n", help.text());
        // this JVM runs from target/classes: no cache can hold those classes, and nothing starts
        final Capture out = new Capture();
        final Path cache = dir.resolve("x.aot");
        assertEquals(1, Mlx5jTool.run(new String[] {"aot", "create", "--cache", cache.toString(), "--", "selfcheck"},
            out.stream, out.stream));
        assertTrue(out.text().startsWith("mlx5j: aot failed: the class path holds the directory "), out.text());
        assertTrue(out.text().contains(": an AOT cache takes classes from jars only"), out.text());
        assertFalse(Files.exists(cache));
    }

    private record Run(int exit, String out, String err)
    {
    }

    /** This JVM's class path as jars in {@code dir}: class directories packed, jars copied (test classes left out). */
    private static String jarClassPath(final Path dir) throws IOException
    {
        Files.createDirectories(dir);
        final List<String> jars = new ArrayList<>();
        int n = 0;
        for (final String entry : System.getProperty("java.class.path").split(":"))
        {
            final Path p = Path.of(entry);
            final Path jar = dir.resolve(n++ + "-" + p.getFileName() + (Files.isDirectory(p) ? ".jar" : ""));
            if (entry.endsWith("test-classes") || !Files.exists(p))
            {
                continue;
            }
            if (Files.isDirectory(p))
            {
                jar("--create", "--file", jar.toString(), "-C", entry, ".");
            }
            else
            {
                Files.copy(p, jar);
            }
            jars.add(jar.toAbsolutePath().toString());
        }
        // the tool's classes come first (surefire: test classes, classes, dependencies); a test rebuilds this jar
        assertTrue(Path.of(jars.get(0)).getFileName().toString().endsWith("-classes.jar"), jars.toString());
        return String.join(":", jars);
    }

    private static void jar(final String... args)
    {
        final ToolProvider jar = ToolProvider.findFirst("jar").orElseThrow();
        assertEquals(0, jar.run(System.out, System.err, args), String.join(" ", args));
    }

    /**
     * The dispatcher on {@code cp} in a JVM without the emulator's environment, as {@code ./mlx5j} starts it
     * (with {@code jvmOptions}), on a fabric of its own; bounded by {@link #LIMIT_SECONDS}.
     */
    private static Run run(final String cp, final List<String> jvmOptions, final String... args) throws Exception
    {
        final Path dir = Files.createDirectories(Path.of("target", "aot-launch"));
        final String name = RUNS.incrementAndGet() + "-" + args[1];
        final Path out = dir.resolve(name + ".out");
        final Path err = dir.resolve(name + ".err");
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny",
            "-D" + EmulatorLaunch.EMULATOR_PROPERTY + "="
                + Path.of(System.getProperty("mlx5emu.launcher")).toAbsolutePath()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", cp, Mlx5jTool.class.getName()));
        cmd.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        final Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.equals("LD_PRELOAD") || k.equals("SYSFS_PATH") || k.startsWith("MLX5EMU_")
            || k.equals("JDK_JAVA_OPTIONS") || k.equals("JAVA_TOOL_OPTIONS"));
        env.remove(EmulatorLaunch.OPTIONS_ENV);
        env.put("MLX5EMU_FABRIC", "mlx5j-tool-aot-" + ProcessHandle.current().pid());
        final Process p = pb.start();
        if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS))
        {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(cmd + " did not finish within " + LIMIT_SECONDS + " s");
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
