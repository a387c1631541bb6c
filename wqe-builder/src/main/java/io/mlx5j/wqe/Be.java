package io.mlx5j.wqe;

import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The only place that knows the mlx5 wire byte order. Every PRM field is big-endian ({@code __be16/32/64} in
 * mlx5dv.h). The handles are aligned: a misaligned offset throws {@link IllegalArgumentException} instead of tearing
 * a store the NIC might observe half-written. Heap segments must therefore be backed by {@code long[]}.
 * Coordinates of every handle: {@code (MemorySegment, long offset)}.
 */
final class Be
{
    static final VarHandle U8 = JAVA_BYTE.varHandle();
    static final VarHandle BE16 = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    static final VarHandle BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    static final VarHandle BE64 = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    private Be()
    {
    }
}
