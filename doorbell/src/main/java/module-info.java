// SPDX-License-Identifier: Apache-2.0
/**
 * Doorbell records, BlueFlame and 8-byte doorbells, and the fences between them. It makes no restricted call of its
 * own: its stores go through {@code io.mlx5j.memory} in {@code io.mlx5j.wqe}.
 */
module io.mlx5j.doorbell {
    requires transitive io.mlx5j.wqe;
    requires jdk.management;

    exports io.mlx5j.doorbell;
}
