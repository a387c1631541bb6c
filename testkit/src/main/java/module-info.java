// SPDX-License-Identifier: Apache-2.0
/**
 * For tests of WQE encoders and of programs on the emulated device: PRM-named dumps ({@code WqeDump},
 * {@code CqeDump}), libmlx5 as an oracle ({@code Libmlx5Oracle}), field-naming assertions ({@code WqeAssertions}),
 * the JUnit 5 extension ({@code EmulatedConnectX}), and the harness ({@code EmulatedDevice}, {@code ChildProcess},
 * {@code HostCommand}). The oracle and {@code EmulatedDevice} make FFM downcalls, so a test JVM that puts this module
 * on the module path names it in {@code --enable-native-access}. JUnit is needed only by the extension.
 */
module io.mlx5j.testkit {
    requires io.mlx5j.bindings;
    requires static org.junit.jupiter.api;

    exports io.mlx5j.testkit;
}
