// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which instruction {@link Dma#wcStart()}/{@link Dma#wcFlush()} use, and that the sfence is real: C2 must compile the
 * hot fence to the {@code writebackPostSync0} intrinsic (a bare {@code sfence} on x86-64), not to a call.
 *
 * <p>{@code mlx5j.expect.sfence} is {@code false} (the run without the export: the locked-instruction fallback),
 * {@code if-clwb} (the run with {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}: sfence exactly when the
 * CPU has clflushopt or clwb; a CPU without them reports a skipped test, because every other test of that run then
 * re-ran the fallback) or {@code true} (sfence required).
 */
class FencePathTest
{
    private static final String EXPORT = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";
    private static final Pattern POST_SYNC_INTRINSIC =
        Pattern.compile("Unsafe::writebackPostSync0 \\(0 bytes\\)\\s+\\(intrinsic\\)");

    @Test
    void fenceIsTheOneThisRunWasConfiguredFor() throws IOException
    {
        final String expect = System.getProperty("mlx5j.expect.sfence", "false");
        if ("false".equals(expect))
        {
            assertEquals("lock add", Dma.wcFence(), "no export of jdk.internal.misc: locked instruction");
            return;
        }
        assertTrue("if-clwb".equals(expect) || "true".equals(expect), "mlx5j.expect.sfence=" + expect);
        final boolean clwb = cpuHasClflushoptOrClwb();
        assertEquals(clwb ? "sfence" : "lock add", Dma.wcFence(),
            "sfence must be used exactly when the CPU has clflushopt or clwb");
        if ("true".equals(expect))
        {
            assertTrue(clwb, "mlx5j.expect.sfence=true but this CPU has neither clflushopt nor clwb");
        }
        Assumptions.assumeTrue(clwb, "this CPU has neither clflushopt nor clwb: HotSpot's write-back post-sync "
            + "emits no sfence there, so this run fell back to the locked instruction");
    }

    @Test
    void hotFenceCompilesToTheIntrinsicAndThePropertyTurnsItOff() throws Exception
    {
        Assumptions.assumeTrue(cpuHasClflushoptOrClwb(), "no clflushopt/clwb: no sfence path on this CPU");
        final String on = child(List.of(EXPORT));
        assertTrue(on.contains("FENCE=sfence"), on);
        assertTrue(POST_SYNC_INTRINSIC.matcher(on).find(), "C2 did not intrinsify the post-sync:\n" + on);

        final String off = child(List.of(EXPORT, "-Dmlx5j.doorbell.sfence=false"));
        assertTrue(off.contains("FENCE=lock add"), off);
        assertFalse(off.contains("writebackPostSync0"), off);

        final String noExport = child(List.of());
        assertTrue(noExport.contains("FENCE=lock add"), noExport);
    }

    @Test
    void withoutC2TheFenceIsTheLockedInstructionAndTheJvmLives() throws Exception
    {
        // HotSpot generates the write-back stubs with C2's: with the interpreter only, or C1 only, the write-back's
        // native post-sync jumps to a null stub (SIGSEGV at pc 0), so the probe itself must not call it there
        for (final String mode : List.of("-Xint", "-XX:TieredStopAtLevel=1"))
        {
            final String out = child(List.of(EXPORT, mode));
            assertTrue(out.contains("FENCE=lock add"), mode + ":\n" + out);
        }
    }

    /**
     * The child JVM's compiler log (complete: compiled with -Xbatch), then its "FENCE=..." line. The child writes
     * that line to a file, not to its output: the compiler thread prints the log at the same time, and a line printed
     * by the program could land in
     * the middle of the intrinsic's line (seen in CI: "writebackPostSync0 (0 bytes)FENCE=sfence" then "(intrinsic)").
     */
    private static String child(final List<String> extraArgs) throws IOException, InterruptedException
    {
        final Path fenceFile = Files.createTempFile("mlx5j-fence", ".txt");
        try
        {
            final List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(extraArgs);
            // -Xbatch: the program waits for each compilation it triggers, so it cannot exit while the compiler
            // thread is still printing the log (seen in CI: the log cut off inside the inlining tree, before the
            // intrinsic's line)
            cmd.addAll(List.of("-Xbatch", "-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintIntrinsics", "-cp",
                System.getProperty("java.class.path"), FenceLoopMain.class.getName(), fenceFile.toString()));
            final Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            final String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), out);
            assertEquals(0, child.exitValue(), out);
            return out + "\n" + Files.readString(fenceFile, StandardCharsets.UTF_8);
        }
        finally
        {
            Files.deleteIfExists(fenceFile);
        }
    }

    private static boolean cpuHasClflushoptOrClwb() throws IOException
    {
        final String cpuinfo = Files.readString(Path.of("/proc/cpuinfo"));
        return "amd64".equals(System.getProperty("os.arch"))
            && (cpuinfo.contains(" clflushopt") || cpuinfo.contains(" clwb"));
    }

    /** Runs the fences until C2 compiles them, then writes which instruction they are to the file args[0]. */
    public static final class FenceLoopMain
    {
        public static void main(final String[] args) throws IOException
        {
            for (int i = 0; i < 200_000; i++)
            {
                Dma.wcStart();
                Dma.wcFlush();
            }
            Files.writeString(Path.of(args[0]), "FENCE=" + Dma.wcFence() + "\n", StandardCharsets.UTF_8);
        }
    }
}
