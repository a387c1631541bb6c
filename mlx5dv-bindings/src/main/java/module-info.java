// SPDX-License-Identifier: Apache-2.0
/**
 * FFM layouts and downcalls for libibverbs, libmlx5, librdmacm and libc's {@code poll}. Its downcalls are restricted
 * methods: start the JVM with {@code --enable-native-access=io.mlx5j.bindings} (on the class path,
 * {@code ALL-UNNAMED}).
 */
module io.mlx5j.bindings {
    exports io.mlx5j.bindings;
}
