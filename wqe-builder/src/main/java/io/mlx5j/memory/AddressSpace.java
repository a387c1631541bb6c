package io.mlx5j.direct;

import java.lang.foreign.MemorySegment;

/**
 * The whole address space for copies by raw address, and the debug switch. (Byte order for device memory lives in
 * {@link io.mlx5j.wqe.Be}, shared with the wqe-builder and doorbell modules.)
 */
final class Wire
{
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
}
