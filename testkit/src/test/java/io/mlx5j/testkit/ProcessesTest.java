// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ChildProcess and HostCommand on plain host programs: what a child inherits and gets added, where its output
 * goes, what a clean run is, the kill at the deadline; and that a host command runs without the emulator in
 * {@code LD_PRELOAD} (shown from a child JVM that has something preloaded, since this one has nothing).
 */
class ProcessesTest
{
    @Test
    void childInheritsTheEnvironmentPlusItsOwnAndWritesToFiles() throws Exception
    {
        final ChildProcess child = new ChildProcess("testkit-env", List.of("sh", "-c",
            "echo \"[$PATH] [$MLX5J_TESTKIT_CHILD]\"; echo to-err >&2; exit 3"), Map.of("MLX5J_TESTKIT_CHILD", "yes"));
        final ChildProcess.Result r = child.await(30);
        assertEquals(3, r.exit());
        assertEquals(List.of("[" + System.getenv("PATH") + "] [yes]"), r.lines());
        assertEquals("to-err\n", r.err());
        assertEquals(r.out(), Files.readString(child.out()));
        assertEquals("target/interop/testkit-env.err", child.err().toString());
        assertFalse(child.process().isAlive());
    }

    @Test
    void cleanMeansExitZeroAndNoStrictReport() throws Exception
    {
        assertTrue(EmulatedDevice.strictMode(), "MLX5EMU_STRICT=1 in this module's surefire configuration");
        new ChildProcess.Result(0, "done\n", "mlx5emu[7]: engine thread\n").assertClean("a clean child");
        final AssertionError failed = assertThrows(AssertionError.class,
            () -> new ChildProcess.Result(1, "out\n", "err\n").assertClean("the client", "java side"));
        assertEquals("the client failed (exit 1):\nout\nerr\n\n--- the mlx5j side:\njava side", failed.getMessage());
        final AssertionError broke = assertThrows(AssertionError.class, () -> new ChildProcess.Result(0, "",
            "mlx5emu[7] STRICT: QP 0x000001 WQE 0: unknown opcode 0x3f\n").assertClean("the server"));
        assertTrue(broke.getMessage().startsWith("the server broke driver rules"), broke.getMessage());
    }

    @Test
    void aChildPastItsDeadlineIsKilledAndTheTestFails() throws Exception
    {
        final ChildProcess child = new ChildProcess("testkit-sleeper", List.of("sh", "-c", "echo started; sleep 60"));
        final long t0 = System.nanoTime();
        final AssertionError ex = assertThrows(AssertionError.class, () -> child.await(1));
        assertTrue(System.nanoTime() - t0 < 15_000_000_000L, "await returned only after the child");
        assertTrue(ex.getMessage().contains("did not finish within 1 s:\nstarted"), ex.getMessage());
        assertFalse(child.process().isAlive());
    }

    @Test
    void hostCommandFeedsStdinMergesOutputAndFailsWithIt()
    {
        assertEquals("b\na\nto-err\n", HostCommand.run(List.of("sh", "-c", "sort -r; echo to-err >&2"), "a\nb\n"));
        assertEquals("", HostCommand.run(List.of("true")));
        final AssertionError ex = assertThrows(AssertionError.class,
            () -> HostCommand.run(List.of("sh", "-c", "echo why; exit 2")));
        assertEquals("[sh, -c, echo why; exit 2] failed with exit 2: why\n", ex.getMessage());
        assertThrows(AssertionError.class, () -> HostCommand.run(List.of("/nonexistent/program")));
    }

    @Test
    void hostCommandRunsWithoutWhatIsPreloaded() throws Exception
    {
        // libc is in every process already: preloading it changes nothing but the variable
        final ChildProcess child = new ChildProcess("testkit-preloaded-jvm", ChildProcess.javaCommand(
            PreloadedMain.class, "-Dtestkit.marker=42"), Map.of("LD_PRELOAD", "libc.so.6"));
        final ChildProcess.Result r = child.await(60);
        assertEquals(0, r.exit(), r.out() + r.err());
        assertEquals(List.of("jvm LD_PRELOAD=libc.so.6 marker=42", "host [unset]"), r.lines());
    }

    /** A child JVM's main: its own LD_PRELOAD and system property, then what a host command sees. */
    public static final class PreloadedMain
    {
        public static void main(final String[] args)
        {
            System.out.println("jvm LD_PRELOAD=" + System.getenv("LD_PRELOAD") + " marker="
                + System.getProperty("testkit.marker"));
            System.out.print(HostCommand.run(List.of("sh", "-c", "echo \"host [${LD_PRELOAD-unset}]\"")));
        }
    }
}
