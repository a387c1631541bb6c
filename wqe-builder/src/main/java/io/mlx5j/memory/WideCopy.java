// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

/**
 * Whether BlueFlame blocks are copied with one 512-bit vector load and store instead of eight 8-byte stores.
 *
 * <p>Measured on the build machine (JDK 25.0.3, AVX-512, 2 cores; JMH): copying one 64-byte block native to native
 * takes 10-14 ns with eight opaque 8-byte loads/stores (8-9 ns with plain ones) and 2.0 ns with one
 * {@code LongVector.SPECIES_512} load and store (a single 64-byte {@code vmovdqu}). A whole BlueFlame ring of a
 * 64-byte WQE (record, two fences, copy, toggle; bench DoorbellBench vs DoorbellScalarBench, 2 forks x 5 s)
 * takes 12.2 +- 0.1 ns against 22.2 +- 0.4 ns. A full 64-byte store is also what a WC line wants: it leaves the CPU
 * as one burst.
 *
 * <p>Enabled only when all hold, so no JVM ever fails for lack of it:
 * <ul>
 *   <li>the JVM was started with {@code --add-modules jdk.incubator.vector} (otherwise {@link Vector512} is never
 *       loaded and no incubator class is touched);</li>
 *   <li>the preferred vector shape has at least 512 bits (machines with AVX2 or less, and aarch64 NEON, fall
 *       back);</li>
 *   <li>the system property {@code mlx5j.doorbell.vector} is not {@code false}.</li>
 * </ul>
 *
 * <p>Thread model: static and stateless; any thread.
 */
final class WideCopy
{
    static final boolean ENABLED = probe();

    private WideCopy()
    {
    }

    private static boolean probe()
    {
        if ("false".equalsIgnoreCase(System.getProperty("mlx5j.doorbell.vector", "true")))
        {
            return false;
        }
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty())
        {
            return false;
        }
        try
        {
            return Vector512.supported();
        }
        catch (final LinkageError ex)
        {
            return false; // module present but not readable from here: stay scalar
        }
    }
}
