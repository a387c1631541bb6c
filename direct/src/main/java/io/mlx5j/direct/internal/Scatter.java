// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.lang.foreign.MemorySegment;

import io.mlx5j.memory.AddressSpace;
import io.mlx5j.memory.Be;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.WcStatus;

/**
 * Scatter-to-CQE copies: data the NIC put into the CQE goes to the buffers a WQE's data segments describe, entry by
 * entry, as libmlx5's copy_to_scat (rdma-core v44 providers/mlx5/qp.c): each entry takes
 * {@code min(remaining, byte_count)} bytes; leftover data after the last entry is a local length error.
 *
 * <p>Thread model: static; any thread.
 */
public final class Scatter
{
    private Scatter()
    {
    }

    /**
     * Copies {@code size} bytes of {@code src} into the buffers the data segments from {@code first} name.
     *
     * @param ring       the queue holding the entries (send ring: entries may wrap at its end)
     * @param ringMask   ring size - 1 (a power of two), applied to every entry offset
     * @param first      offset of the first data segment
     * @param maxEntries how many 16-byte entries may be read
     * @param src the bytes to copy (the CQ ring)
     * @param srcOffset offset of the first byte in {@code src}
     * @param size bytes to copy
     * @return {@link WcStatus#SUCCESS}, or {@link WcStatus#LOC_LEN_ERR} when the data does not fit
     */
    public static WcStatus copy(final MemorySegment ring, final long ringMask, final long first, final int maxEntries,
        final MemorySegment src, final long srcOffset, final int size)
    {
        int remaining = size;
        if (remaining <= 0)
        {
            return WcStatus.SUCCESS;
        }
        long from = srcOffset;
        for (int i = 0; i < maxEntries; i++)
        {
            final long entry = (first + ((long) i << 4)) & ringMask;
            final long byteCount = Be.be32(ring, entry + DataSeg.BYTE_COUNT_OFFSET) & 0xffffffffL;
            final int n = (int) Math.min(remaining, byteCount);
            if (n > 0)
            {
                MemorySegment.copy(src, from, AddressSpace.ALL, Be.be64(ring, entry + DataSeg.ADDR_OFFSET), n);
            }
            remaining -= n;
            if (remaining == 0)
            {
                return WcStatus.SUCCESS;
            }
            from += n;
        }
        return WcStatus.LOC_LEN_ERR;
    }
}
