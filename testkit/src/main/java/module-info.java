/**
 * The harness for tests on the emulated device: {@code EmulatedDevice}, {@code ChildProcess}, {@code HostCommand}.
 * {@code EmulatedDevice} calls the emulator's library through FFM downcalls, so a test JVM that puts this module on
 * the module path names it in {@code --enable-native-access}.
 */
module io.mlx5j.testkit {
    exports io.mlx5j.testkit;
}
