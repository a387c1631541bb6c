// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** mlx5j starts on x86-64 only; elsewhere the fence class refuses to initialise and says what is unproven. */
class PlatformTest
{
    /** Touches {@link Dma} in a JVM of its own (its class initialisation runs once per JVM). */
    public static void main(final String[] args)
    {
        System.out.println("fence: " + Dma.wcFence());
    }

    @Test
    void x8664IsSupported()
    {
        assertNull(Platform.refusal("amd64"));
        assertNull(Platform.refusal("x86_64"));
    }

    @Test
    void otherArchitecturesAreRefusedWithTheReason()
    {
        assertTrue(Platform.refusal("aarch64").startsWith("mlx5j does not run on aarch64: its device fences are "
            + "proven for x86-64 only. On Arm, rdma-core orders doorbells with dmb oshst / dsb st"));
        assertTrue(Platform.refusal("riscv64").startsWith("mlx5j does not run on riscv64: its device fences are "
            + "proven for x86-64 only"));
    }

    @Test
    @Timeout(60)
    void theSystemPropertyStandsInForTheArchitecture() throws Exception
    {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final Process p = new ProcessBuilder(List.of(java, "-D" + Platform.ARCH_PROPERTY + "=aarch64", "-cp",
            System.getProperty("java.class.path"), PlatformTest.class.getName())).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(50, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("java.lang.UnsupportedOperationException: mlx5j does not run on aarch64: its device "
            + "fences are proven for x86-64 only"), out);

        final Process ok = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
            PlatformTest.class.getName())).redirectErrorStream(true).start();
        final String okOut = new String(ok.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(ok.waitFor(50, TimeUnit.SECONDS));
        assertEquals(0, ok.exitValue(), okOut);
        assertTrue(okOut.startsWith("fence: "), okOut);
    }
}
