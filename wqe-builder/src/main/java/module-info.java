// SPDX-License-Identifier: Apache-2.0
/**
 * The mlx5 wire format in pure Java: WQE segments, the send and receive ring counters, CQE decoding.
 *
 * <p>{@code io.mlx5j.memory} is the one floor for memory access that mlx5j's modules share, exported to them only.
 * Its {@code AddressSpace} is a restricted {@code reinterpret}, so this module needs
 * {@code --enable-native-access=io.mlx5j.wqe}; with {@code --add-exports java.base/jdk.internal.misc=io.mlx5j.wqe}
 * its stores by address go through {@code jdk.internal.misc.Unsafe} (without, through VarHandles), and with
 * {@code --add-modules jdk.incubator.vector} on a CPU with 512-bit vectors its BlueFlame copies take one 64-byte
 * store per block. The incubator module is optional ({@code requires static}): no class touches it unless the
 * running JVM resolved it.
 */
module io.mlx5j.wqe {
    requires static jdk.incubator.vector;

    exports io.mlx5j.wqe;
    exports io.mlx5j.memory to io.mlx5j.doorbell, io.mlx5j.direct;
}
