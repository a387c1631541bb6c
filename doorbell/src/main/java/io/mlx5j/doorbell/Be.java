package io.mlx5j.doorbell;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The only place in this package that knows about byte order. Handles are aligned: a misaligned offset throws
 * {@link IllegalArgumentException} rather than silently tearing a device-visible store.
 */
final class Be
{
    /** Big-endian 32-bit word: doorbell records ({@code __be32 *dbrec}). */
    static final VarHandle BE32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    /** Big-endian 64-bit word: the CQ arm doorbell ({@code mmio_write64_be(..., htobe64(doorbell))}). */
    static final VarHandle BE64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    /** 8 raw bytes in native order: WQE bytes are already big-endian, a BlueFlame copy moves them and never re-encodes. */
    static final VarHandle RAW64 = ValueLayout.JAVA_LONG.varHandle();

    private Be()
    {
    }
}
