// SPDX-License-Identifier: Apache-2.0
/**
 * The example as a named module: run.sh runs it on the module path as well as on the class path (where this
 * descriptor is ignored). mlx5j's API reaches it through {@code io.mlx5j.direct}, which requires
 * {@code io.mlx5j.bindings}, {@code io.mlx5j.wqe} and {@code io.mlx5j.doorbell} transitively.
 */
module io.mlx5j.examples.rcloopback {
    requires io.mlx5j.direct;
}
