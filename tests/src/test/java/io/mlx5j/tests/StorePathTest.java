// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.mlx5j.memory.RingStores;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The two parity runs (pom.xml) write WQEs the two ways RingStores has: parity-ib without the export of
 * jdk.internal.misc (checked stores through AddressSpace.ALL), parity-roce with it and the vector module (Unsafe, and
 * the raw send's inline data by 512-bit vectors on a CPU with AVX-512F). This proves each run took the way it was
 * configured for, so libmlx5's bytes judge both.
 */
@Tag("parity")
class StorePathTest
{
    @Test
    void parityRunWritesWqesTheConfiguredWay() throws IOException
    {
        final String expect = System.getProperty("mlx5j.expect.ringStores");
        assertNotNull(expect, "mlx5j.expect.ringStores is set by the parity executions in tests/pom.xml");
        final String ifAvx512 = ", 512-bit copies if AVX-512";
        if (expect.endsWith(ifAvx512))
        {
            final boolean avx512 = Files.readString(Path.of("/proc/cpuinfo")).contains(" avx512f");
            final String base = expect.substring(0, expect.length() - ifAvx512.length());
            assertEquals(avx512 ? base + ", 512-bit copies" : base, RingStores.mode());
            return;
        }
        assertEquals(expect, RingStores.mode());
    }
}
