// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.wqe.UdpHeaderTemplate;

/**
 * The work every raw Ethernet benchmark does, whatever the stack ({@link EmulatedRawQp}).
 * <p>
 * <b>Send.</b> One frame is a market-data-sized UDP datagram: a 42-byte Ethernet/IPv4/UDP header (built once with a
 * {@link UdpHeaderTemplate}) and a {@link #PAYLOAD}-byte payload, 106 bytes, given to every stack as the same two
 * pieces (header, payload) with IPv4/UDP checksum offload. One invocation posts {@link Workload#BATCH} frames, one
 * doorbell each, the last one signaled; the {@link SyntheticCompleter} writes its CQE and the stack's own poller
 * consumes it, as in the RC benchmarks ({@link Workload}). Two forms: payload by gather entry, and payload inline.
 * mlx5j writes the whole header into the Ethernet segment ({@code RawSendQueue.inlineHeaders(42)}: the NIC parses
 * L2-L4 from the WQE, no DMA for it); libmlx5 cannot do that for a plain send and writes its minimum inline header
 * (0 bytes on a ConnectX-5, 18 with MLX5EMU_ETH_MIN_INLINE=l2) followed by the rest as gather entries or inline data.
 * <p>
 * <b>Receive.</b> One op is one received frame: the {@link RawRecvCompleter} writes a raw receive CQE (a 106-byte
 * IPv4/UDP frame, checksums good, a NIC timestamp), the stack polls it, checks wr_id, status and length, and posts
 * the buffer back to the receive queue (a feed handler's steady state: every buffer returns). libmlx5 would
 * complete receives without reposts (it does not check that a WQE is outstanding), mlx5j would not; reposting in
 * both keeps the work equal and real.
 */
final class RawWorkload
{
    /** Payload bytes after the 42-byte header. */
    static final int PAYLOAD = 64;
    /** Frame bytes: header + payload. */
    static final int FRAME = UdpHeaderTemplate.LENGTH + PAYLOAD;

    /** Offsets in the registered memory. */
    static final int HEADER_OFFSET = 0;
    static final int PAYLOAD_OFFSET = 4096;
    static final int RECV_OFFSET = 64 * 1024;
    /** Bytes of one receive buffer (an MTU-sized frame fits). */
    static final int RECV_BUF = 2048;

    /** NIC clock ticks between two received frames' timestamps. */
    static final long TICKS_PER_FRAME = 157;

    private RawWorkload()
    {
    }

    /**
     * WQEBBs libmlx5 writes for the frame (rdma-core v44 providers/mlx5/qp.c, _mlx5_post_send's IBV_QPT_RAW_PACKET
     * branch and the ibv_wr_* eth builders alike): ctrl 16 + Ethernet segment (16, or 32 when it carries the 18-byte
     * minimum inline header), then the rest of the frame as an inline segment (4-byte header + data, padded to 16) or
     * as one 16-byte data segment per non-empty remaining piece (both pieces in either mode: the header piece is
     * 42 bytes, longer than 18).
     */
    static int libmlx5Wqebb(final int minInline, final boolean inline)
    {
        final int eseg = minInline == 0 ? 16 : 32;
        final int rest = inline ? (4 + FRAME - minInline + 15) & ~15 : 2 * 16;
        return (16 + eseg + rest + 63) / 64;
    }
}
