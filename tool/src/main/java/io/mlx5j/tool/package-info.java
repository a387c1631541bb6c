// SPDX-License-Identifier: Apache-2.0
/**
 * The {@code mlx5j} command-line tool ({@link io.mlx5j.tool.Mlx5jTool}, started by {@code ./mlx5j}). This package
 * holds the dispatcher and what every command shares: the option reader ({@link io.mlx5j.tool.Args}) and its
 * {@link io.mlx5j.tool.UsageException}, the launch on the emulated ConnectX ({@code EmulatorLaunch}), JDK 25's
 * ahead-of-time cache for a command ({@code AotCommand}, {@code mlx5j aot create|run}), and the texts
 * the commands print about devices ({@link io.mlx5j.tool.DevicesCommand}, which is also {@code mlx5j devices}) and
 * GIDs ({@link io.mlx5j.tool.GidText}). Each other command has a package of its own:
 * <ul>
 *   <li>{@link io.mlx5j.tool.perf}: {@code perf TEST}, perftest's peer (its ib_* tests and its raw Ethernet tests),
 *       with {@link io.mlx5j.tool.perf.report} for its tables and statistics;</li>
 *   <li>{@link io.mlx5j.tool.pingpong}: the protocol of {@code ibv_rc_pingpong} / {@code ibv_ud_pingpong}, over the
 *       out-of-band exchange of {@link io.mlx5j.tool.oob};</li>
 *   <li>{@link io.mlx5j.tool.rping}: rping's protocol over rdma_cm;</li>
 *   <li>{@link io.mlx5j.tool.feed}: a market-data feed over raw Ethernet;</li>
 *   <li>{@link io.mlx5j.tool.selfcheck}: the encoded bytes of a few work requests, no device needed.</li>
 * </ul>
 * Threads: every command runs on the calling thread; in loopback that one thread drives both endpoints (each queue is
 * still confined to it, as the data path requires). The measuring loops allocate nothing and throw only on failure
 * (an error completion, or a stall longer than {@code --timeout}: a lost peer is reported, not waited for forever).
 * Results go to stdout, progress of long runs to stderr. Exit status: 0 success, 1 failure at run time, 2 bad
 * command line.
 */
package io.mlx5j.tool;
