/**
 * The {@code mlx5j} command-line tool ({@link io.mlx5j.tool.Mlx5jTool}, started by {@code ./mlx5j}):
 * <ul>
 *   <li>{@code devices}: devices, node GUID, per port state, link layer, LID, MTU and the non-zero GIDs;</li>
 *   <li>{@code perf TEST}: perftest-style benchmarks (write_lat, write_bw, send_lat, send_bw, read_lat, read_bw,
 *       atomic_lat) whose every post and poll goes through the Java direct path ({@code SendQueue},
 *       {@code RecvQueue}, {@code CqPoller}); loopback in one process, or server and client over the
 *       {@link io.mlx5j.tool.oob} exchange; each run checks the bytes that moved;</li>
 *   <li>{@code pingpong}: the protocol of {@code ibv_rc_pingpong} / {@code ibv_ud_pingpong}, for interop with
 *       them.</li>
 * </ul>
 * Threads: every command runs on the calling thread; in loopback that one thread drives both endpoints (each queue is
 * still confined to it, as the data path requires). The measuring loops ({@code PerfLoops}) allocate nothing and
 * throw only on failure: an error completion, or a stall longer than {@code --timeout} (a lost peer is reported, not
 * waited for forever). Results go to stdout, progress of long runs to stderr.
 */
package io.mlx5j.tool;
