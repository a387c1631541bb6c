package io.mlx5j.doorbell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build runs the tests twice (see pom.xml); this proves each run took the BlueFlame copy path it was meant to,
 * so the byte-exact tests cover both the scalar and the 512-bit copy.
 */
class CopyPathTest
{
    @Test
    void copyPathIsTheOneThisRunWasConfiguredFor() throws IOException
    {
        final String expect = System.getProperty("mlx5j.expect.wide", "false");
        if ("if-avx512".equals(expect))
        {
            assertTrue(ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(), "module not added");
            final String cpu = Files.readString(Path.of("/proc/cpuinfo"));
            assertEquals(cpu.contains(" avx512f"), BlueFlameRegister.wideCopy(),
                "512-bit copy must be used exactly when the CPU has AVX-512F");
        }
        else
        {
            assertEquals("false", expect);
            assertEquals(false, BlueFlameRegister.wideCopy(), "no incubator module: scalar copy");
        }
    }
}
