// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import io.mlx5j.memory.WideRingCopy;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build runs the tests twice (see pom.xml); this proves each run took the BlueFlame copy path it was meant to,
 * so the byte-exact tests cover both the scalar and the 512-bit copy.
 *
 * <p>{@code mlx5j.expect.wide} is {@code false} (scalar run), {@code if-avx512} (the wide run of {@code mvn verify}:
 * a CPU without AVX-512F cannot take the wide path, and this test then reports that as a skipped test with the
 * reason instead of passing, because every other test of that run quietly re-ran the scalar copy), or {@code true}
 * (the wide path is required: its absence fails).
 */
class CopyPathTest
{
    @Test
    void copyPathIsTheOneThisRunWasConfiguredFor() throws IOException
    {
        final String expect = System.getProperty("mlx5j.expect.wide", "false");
        if ("false".equals(expect))
        {
            assertEquals(false, BlueFlameRegister.wideCopy(), "no incubator module: scalar copy");
            return;
        }
        assertTrue("if-avx512".equals(expect) || "true".equals(expect), "mlx5j.expect.wide=" + expect);
        assertTrue(ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(), "module not added");
        final boolean avx512 = Files.readString(Path.of("/proc/cpuinfo")).contains(" avx512f");
        assertEquals(avx512, BlueFlameRegister.wideCopy(),
            "512-bit copy must be used exactly when the CPU has AVX-512F");
        wideCopyMovesTheBytesUnchanged();
        if ("true".equals(expect))
        {
            assertTrue(avx512, "mlx5j.expect.wide=true but this CPU has no AVX-512F: the 512-bit path cannot run");
        }
        Assumptions.assumeTrue(avx512, "this CPU has no AVX-512F: the 512-bit BlueFlame copy was NOT exercised by "
            + "this run; every other test here re-ran the scalar copy (only the direct call above ran the vector "
            + "code, in Java, without single 64-byte stores)");
    }

    /**
     * The vector copy itself, called directly so that its bytes are checked in the wide run even where the CPU makes
     * the run fall back to the scalar copy (the Vector API then executes it in Java, with the same result).
     */
    private static void wideCopyMovesTheBytesUnchanged()
    {
        final MemorySegment src = MemorySegment.ofArray(new long[128 / 8]);
        final MemorySegment dst = MemorySegment.ofArray(new long[192 / 8]);
        for (int i = 0; i < 128; i++)
        {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
        }
        WideRingCopy.copy64(src, 64, dst, 128);
        final byte[] expect = new byte[192];
        for (int i = 0; i < 64; i++)
        {
            expect[128 + i] = (byte) ((64 + i) * 7 + 1);
        }
        assertArrayEquals(expect, dst.toArray(ValueLayout.JAVA_BYTE));
    }
}
