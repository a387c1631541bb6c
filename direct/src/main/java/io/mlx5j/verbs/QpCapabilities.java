// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvQpCap;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.bindings.CTypes.U32;

/**
 * Queue sizes ({@code struct ibv_qp_cap}): requested in a {@link QpConfig}, granted ones in
 * {@link QueuePair#capabilities()}.
 *
 * @param maxSendWr send work requests ({@code max_send_wr})
 * @param maxRecvWr receive work requests ({@code max_recv_wr})
 * @param maxSendSge gather entries per send ({@code max_send_sge})
 * @param maxRecvSge scatter entries per receive ({@code max_recv_sge})
 * @param maxInlineData inline bytes per send ({@code max_inline_data})
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData)
{
    void write(final MemorySegment segment, final long offset)
    {
        segment.set(U32, offset + IbvQpCap.MAX_SEND_WR_OFFSET, maxSendWr);
        segment.set(U32, offset + IbvQpCap.MAX_RECV_WR_OFFSET, maxRecvWr);
        segment.set(U32, offset + IbvQpCap.MAX_SEND_SGE_OFFSET, maxSendSge);
        segment.set(U32, offset + IbvQpCap.MAX_RECV_SGE_OFFSET, maxRecvSge);
        segment.set(U32, offset + IbvQpCap.MAX_INLINE_DATA_OFFSET, maxInlineData);
    }

    static QpCapabilities read(final MemorySegment segment, final long offset)
    {
        return new QpCapabilities(
            segment.get(U32, offset + IbvQpCap.MAX_SEND_WR_OFFSET),
            segment.get(U32, offset + IbvQpCap.MAX_RECV_WR_OFFSET),
            segment.get(U32, offset + IbvQpCap.MAX_SEND_SGE_OFFSET),
            segment.get(U32, offset + IbvQpCap.MAX_RECV_SGE_OFFSET),
            segment.get(U32, offset + IbvQpCap.MAX_INLINE_DATA_OFFSET));
    }
}
