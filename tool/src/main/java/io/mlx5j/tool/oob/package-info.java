// SPDX-License-Identifier: Apache-2.0
/**
 * The out-of-band exchange peers use to learn each other's QP address before they connect: plain TCP with the wire
 * format of rdma-core's {@code ibv_rc_pingpong} / {@code ibv_ud_pingpong} (rdma-core v44 libibverbs/examples), so an
 * mlx5j process can stand on either side of the unmodified examples.
 * <ul>
 *   <li>{@link io.mlx5j.tool.oob.PingpongWire}: the bytes (52-byte address message, 5-byte "done", and the
 *       mlx5j-only 43-byte RDMA buffer message);</li>
 *   <li>{@link io.mlx5j.tool.oob.OobServer} / {@link io.mlx5j.tool.oob.OobConnection}: listening, connecting
 *       (with retries until a deadline), fixed-size messages with read timeouts;</li>
 *   <li>{@link io.mlx5j.tool.oob.PingpongExchange}: the client and server halves in the examples' order (the server
 *       connects its QP before it answers), plus {@code exchangeBuffers} and {@code barrier} for mlx5j peers.</li>
 * </ul>
 * Control path only: allocates, blocks, throws {@link java.io.UncheckedIOException} naming the peer and the message
 * on I/O failure or timeout, and {@link java.lang.IllegalArgumentException} on malformed messages. A connection is used
 * by one thread at a time.
 */
package io.mlx5j.tool.oob;
