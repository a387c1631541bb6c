// SPDX-License-Identifier: Apache-2.0
/**
 * {@code mlx5j perf TEST}: perftest's tests on the Java direct path, every post and poll through
 * {@code SendQueue} / {@code RawSendQueue}, {@code RecvQueue} and {@code CqPoller}, with perftest's
 * command line, protocol and tables, so that either side of a run may be perftest itself. One concept per file:
 * <ul>
 *   <li>the command: {@link io.mlx5j.tool.perf.PerfCommand} opens the device and runs an ib_* test (loopback, or one
 *       side of perftest's exchange through {@code PerftestSession}); {@code RawPerfCommand} runs a raw test;</li>
 *   <li>the options: {@link io.mlx5j.tool.perf.PerfOptions} parses the common options once, and the test's transport
 *       adds its part, {@link io.mlx5j.tool.perf.IbOptions} or {@link io.mlx5j.tool.perf.RawOptions};
 *       {@link io.mlx5j.tool.perf.PerfTest} names the tests;</li>
 *   <li>the endpoints: {@code Endpoint} (a QP, its CQs, its receive queue and buffer) with its RC part
 *       {@code RcEndpoint} and its raw part {@code RawEndpoint} (and {@code RawFrame}, the frame perftest builds);</li>
 *   <li>the measuring loops: {@code PerfLoops}, one family written against {@code Endpoint}; {@code RunWindow} for
 *       duration runs ({@code -D}); {@code Progress}; {@code JitWarmup} before a latency run;</li>
 *   <li>perftest's out-of-band exchange: {@code PerftestSession} (its sequence of steps), {@code PerftestWire} (its
 *       messages) over a {@code PerftestLink}: TCP ({@code PerftestTcpLink}) or rdma_cm ({@code PerftestCmLink}).</li>
 * </ul>
 */
package io.mlx5j.tool.perf;
