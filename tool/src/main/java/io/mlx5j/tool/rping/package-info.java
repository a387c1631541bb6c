// SPDX-License-Identifier: Apache-2.0
/** {@code mlx5j rping}: rdma-core's rping over rdma_cm ({@code io.mlx5j.cm}), either side the unmodified rping. */
package io.mlx5j.tool.rping;
