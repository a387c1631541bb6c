// SPDX-License-Identifier: Apache-2.0
/**
 * {@code mlx5j blocks serve|bench}: a storage demo. The server exports one registered region (a mapped file or an
 * anonymous buffer) and hands its address, rkey and size to each client in the rdma_cm private data; the bench opens
 * N RC connections and reads and writes checksummed blocks by RDMA READ and WRITE, with a queue depth per connection,
 * and reports IOPS, latency percentiles, per-connection fairness and every block that fails verification.
 */
package io.mlx5j.tool.blocks;
