// SPDX-License-Identifier: Apache-2.0
/**
 * {@code mlx5j pingpong}: the protocol of rdma-core's {@code ibv_rc_pingpong} / {@code ibv_ud_pingpong}, so that
 * either side may be the unmodified example; the addresses travel over {@link io.mlx5j.tool.oob}.
 */
package io.mlx5j.tool.pingpong;
