// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

final class Hex
{
    private Hex()
    {
    }

    /** Lower-case hex of {@code n} bytes from {@code offset}, wrapping at the segment end (ring semantics). */
    static String of(final MemorySegment seg, final long offset, final int n)
    {
        final StringBuilder sb = new StringBuilder(2 * n);
        final long size = seg.byteSize();
        for (int i = 0; i < n; i++)
        {
            sb.append(String.format("%02x", seg.get(ValueLayout.JAVA_BYTE, (offset + i) % size) & 0xff));
        }
        return sb.toString();
    }

    static String of(final byte[] b)
    {
        return of(MemorySegment.ofArray(b), 0, b.length);
    }
}
