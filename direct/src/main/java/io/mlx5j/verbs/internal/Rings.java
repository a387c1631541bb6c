// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Turns the raw pointers mlx5dv_init_obj reports into sized segments owned by the object's arena.
 *
 * <p>Thread model: static; any thread.
 */
public final class Rings
{
    /** A doorbell record: two big-endian 32-bit counters. */
    public static final long DBREC_BYTES = 8;

    private Rings()
    {
    }

    /**
     * {@code pointer} with {@code size} bytes, valid until {@code arena} closes (the object is destroyed right after,
     * so no view outlives the memory). A NULL pointer is only accepted for an empty region.
     *
     * @param pointer the start of the region
     * @param size the region's size in bytes
     * @param arena the arena that bounds its lifetime
     * @param what what the region is, for messages
     * @return the segment
     */
    public static MemorySegment view(final MemorySegment pointer, final long size, final Arena arena, final String what)
    {
        if (pointer.address() == 0)
        {
            if (size != 0)
            {
                throw new IllegalStateException("mlx5dv_init_obj reported NULL " + what + " for " + size + " bytes");
            }
            return MemorySegment.NULL;
        }
        return pointer.reinterpret(size, arena, null);
    }
}
