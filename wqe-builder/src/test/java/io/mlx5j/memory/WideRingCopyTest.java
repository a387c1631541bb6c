// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The raw send's inline copy by vectors ({@link WideRingCopy}): every length from 0 to 200 bytes at every source and
 * destination alignment within 8 bytes (and a few odd ones) copies exactly those bytes and leaves the bytes on either
 * side untouched (the masked last block must neither read nor write past the end). Runs in the build's wide run, where
 * the incubator module is present (on a CPU without AVX-512 the Vector API executes the same code in Java); the
 * scalar run proves the copy is off there.
 */
class WideRingCopyTest
{
    private static final int GUARD = 64;
    private static final int MAX = 200;
    private static final byte FILL = (byte)0xa5;

    @Test
    void copiesEveryLengthAndAlignmentAndNothingElse()
    {
        if ("false".equals(System.getProperty("mlx5j.expect.wide", "false")))
        {
            assertFalse(WideRingCopy.enabled(), "no incubator module in this run: the vector copy must be off");
            return;
        }
        assertEquals(WideCopy.ENABLED, WideRingCopy.enabled());
        try (Arena arena = Arena.ofConfined())
        {
            final int size = GUARD + MAX + 64 + GUARD;
            final MemorySegment src = arena.allocate(size, 64);
            final MemorySegment dst = arena.allocate(size, 64);
            final MemorySegment expected = arena.allocate(size, 64);
            for (int i = 0; i < size; i++)
            {
                src.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 31 + 7));
            }
            final int[] offsets = {0, 1, 2, 3, 4, 5, 6, 7, 12, 36, 52, 63};
            for (int len = 0; len <= MAX; len++)
            {
                for (final int from : offsets)
                {
                    for (final int to : offsets)
                    {
                        dst.fill(FILL);
                        expected.fill(FILL);
                        MemorySegment.copy(src, GUARD + from, expected, GUARD + to, len);
                        WideRingCopy.copy(src.address() + GUARD + from, dst.address() + GUARD + to, len);
                        assertArrayEquals(expected.toArray(ValueLayout.JAVA_BYTE), dst.toArray(ValueLayout.JAVA_BYTE),
                            "len " + len + " from +" + from + " to +" + to);
                    }
                }
            }
        }
    }
}
