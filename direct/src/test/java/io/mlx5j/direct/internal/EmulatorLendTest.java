// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.direct.CqPoller;
import io.mlx5j.testkit.ChildProcess;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When {@link CqPoller}'s empty polls lend cycles to the emulated device ({@link EmulatorLend}): under the emulator
 * with its engine running (this test JVM, surefire's environment), and nowhere else. The "nowhere else" matters most:
 * the benchmarks run the emulator with {@code MLX5EMU_ENGINE=off} and must measure polls without the call, and on a
 * real ConnectX (no emulator library in the process) the call must not exist. Each case is a child JVM, because the
 * decision is a constant taken once per JVM.
 */
class EmulatorLendTest
{
    /** Child JVM: prints the decision. */
    public static final class Probe
    {
        public static void main(final String[] args)
        {
            System.out.println("ENABLED=" + EmulatorLend.ENABLED);
        }
    }

    @Test
    void lendsUnderTheEmulatorWithItsEngineRunning()
    {
        assertTrue(EmulatorLend.ENABLED, "CqPoller would not lend cycles to the emulated device; LD_PRELOAD="
            + System.getenv("LD_PRELOAD") + ", MLX5EMU_ENGINE=" + System.getenv("MLX5EMU_ENGINE"));
    }

    @Test
    void decidedPerEnvironment() throws Exception
    {
        assertEquals("ENABLED=true", probe(Map.of(), false));
        assertEquals("ENABLED=false", probe(Map.of("MLX5EMU_ENGINE", "off"), false));
        assertEquals("ENABLED=false", probe(Map.of("MLX5EMU_LEND", "0"), false));
        assertEquals("ENABLED=false", probe(Map.of(), true), "without the emulator library (a real ConnectX)");
    }

    private static String probe(final Map<String, String> env, final boolean withoutEmulator) throws Exception
    {
        final ProcessBuilder pb = new ProcessBuilder(ChildProcess.javaCommand(Probe.class)).redirectErrorStream(true);
        pb.environment().putAll(env);
        if (withoutEmulator)
        {
            pb.environment().remove("LD_PRELOAD");
        }
        final Process process = pb.start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, "child JVM failed: " + out);
        return out.lines().filter(l -> l.startsWith("ENABLED=")).findFirst().orElse(out);
    }
}
