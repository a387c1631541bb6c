// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import java.io.IOException;
import java.time.Duration;

/**
 * What carries perftest's out-of-band exchanges: a TCP socket ({@link PerftestTcpLink}, perftest's default) or an
 * RC QP connected through rdma_cm ({@link PerftestCmLink}, perftest's {@code -R}). {@link PerftestWire} speaks the
 * protocol over either.
 */
interface PerftestLink extends AutoCloseable
{
    /** Sends one message of exactly {@code msg.length} bytes. */
    void write(byte[] msg, String what) throws IOException;

    /** Receives one message of exactly {@code length} bytes. */
    byte[] read(int length, String what) throws IOException;

    /** Time limit of each later read (0: wait as long as the peer lives). */
    void readTimeout(Duration timeout) throws IOException;

    /**
     * True when QP destinations travel as perftest's binary {@code struct pingpong_dest} (rdma_write_keys), false for
     * its text (ethernet_write_keys).
     */
    boolean binaryDestinations();

    /** What ctx_close_connection sends after its last handshake: "done" on TCP, nothing over rdma_cm. */
    void finish() throws IOException;

    /** The peer, for messages. */
    String peer();

    @Override
    void close() throws IOException;
}
