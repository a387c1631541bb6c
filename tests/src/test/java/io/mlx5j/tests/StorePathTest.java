package io.mlx5j.tests;

import io.mlx5j.direct.RingStores;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The two parity runs (pom.xml) write WQEs the two ways RingStores has: parity-ib without the export of
 * jdk.internal.misc (checked stores through Wire.ALL), parity-roce with it (Unsafe). This proves each run took the
 * way it was configured for, so libmlx5's bytes judge both.
 */
@Tag("parity")
class StorePathTest
{
    @Test
    void parityRunWritesWqesTheConfiguredWay()
    {
        final String expect = System.getProperty("mlx5j.expect.ringStores");
        assertNotNull(expect, "mlx5j.expect.ringStores is set by the parity executions in tests/pom.xml");
        assertEquals(expect, RingStores.mode());
    }
}
