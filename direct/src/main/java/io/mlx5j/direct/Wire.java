package io.mlx5j.direct;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** Big-endian accessors for device-owned memory, and the whole address space for copies by raw address. */
final class Wire
{
    static final VarHandle U8 = JAVA_BYTE.varHandle();
    static final VarHandle BE16 = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    static final VarHandle BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    static final VarHandle BE64 = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    /**
     * Every address of the process. Post methods take raw addresses (an MR's buffer plus an offset, as verbs SGEs do),
     * and inline payloads and scatter-to-CQE data are copied through this one segment, so no segment is created per
     * post. It bypasses bounds checks by design: the caller's address and length are what the NIC would use.
     */
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /** -Dmlx5j.debug=true: every hot-path call checks that it runs on the queue's owner thread. */
    static final boolean DEBUG = Boolean.getBoolean("mlx5j.debug");

    private Wire()
    {
    }

    static int u8(final MemorySegment s, final long at)
    {
        return (byte) U8.get(s, at) & 0xff;
    }

    static int be16(final MemorySegment s, final long at)
    {
        return (short) BE16.get(s, at) & 0xffff;
    }

    static int be32(final MemorySegment s, final long at)
    {
        return (int) BE32.get(s, at);
    }

    static long be64(final MemorySegment s, final long at)
    {
        return (long) BE64.get(s, at);
    }
}
