// SPDX-License-Identifier: Apache-2.0
/**
 * {@code mlx5j validate}: the acceptance check of a machine's mlx5 device and rdma-core for mlx5j (docs/hardware.md).
 */
package io.mlx5j.tool.validate;
