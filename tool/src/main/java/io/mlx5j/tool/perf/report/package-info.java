// SPDX-License-Identifier: Apache-2.0
/**
 * What {@code mlx5j perf} reports, apart from any device: perftest's result tables
 * ({@link io.mlx5j.tool.perf.report.ResultTable}), latency statistics ({@link io.mlx5j.tool.perf.report.LatencyStats}),
 * throughput ({@link io.mlx5j.tool.perf.report.BandwidthStats}) and the BW peak
 * ({@link io.mlx5j.tool.perf.report.BandwidthPeak}, whose recording the measuring loops call without allocating).
 */
package io.mlx5j.tool.perf.report;
