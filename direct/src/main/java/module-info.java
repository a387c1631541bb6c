// SPDX-License-Identifier: Apache-2.0
/**
 * The mlx5 direct path for the JVM: the verbs control path ({@code io.mlx5j.verbs}), zero-allocation posts and polls
 * ({@code io.mlx5j.direct}), raw Ethernet ({@code io.mlx5j.raw}) and rdma_cm ({@code io.mlx5j.cm}). The
 * {@code .internal} packages are not exported.
 *
 * <p>Start the JVM with {@code --enable-native-access=io.mlx5j.bindings,io.mlx5j.wqe,io.mlx5j.direct} (the modules
 * that make restricted calls), and for speed with {@code --add-exports java.base/jdk.internal.misc=io.mlx5j.wqe} and
 * {@code --add-modules jdk.incubator.vector}. On the class path the same options name {@code ALL-UNNAMED}.
 */
module io.mlx5j.direct {
    requires transitive io.mlx5j.bindings;
    requires transitive io.mlx5j.wqe;
    requires transitive io.mlx5j.doorbell;

    exports io.mlx5j.verbs;
    exports io.mlx5j.direct;
    exports io.mlx5j.raw;
    exports io.mlx5j.cm;
}
