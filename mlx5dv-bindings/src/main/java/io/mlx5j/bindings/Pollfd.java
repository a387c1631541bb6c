// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct pollfd} (poll.h, glibc): the argument of {@link Libc#poll}.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Pollfd
{
    /** There is data to read (bits/poll.h, POLLIN 0x001). */
    public static final short POLLIN = 0x001;

    /** Memory layout of {@code struct pollfd} (poll.h). */
    public static final GroupLayout LAYOUT = structLayout(
        C_INT.withName("fd"),
        JAVA_SHORT.withName("events"),
        JAVA_SHORT.withName("revents")).withName("pollfd");

    /** Byte offset of {@code fd} in {@code struct pollfd}. */
    public static final long FD_OFFSET = offset(LAYOUT, "fd");
    /** Byte offset of {@code events} in {@code struct pollfd}. */
    public static final long EVENTS_OFFSET = offset(LAYOUT, "events");
    /** Byte offset of {@code revents} in {@code struct pollfd}. */
    public static final long REVENTS_OFFSET = offset(LAYOUT, "revents");

    private Pollfd()
    {
    }
}
