package io.mlx5j.bench;

/**
 * The JVM options of every benchmark fork, as constants for {@code @Fork(jvmArgsAppend = ...)}. The mlx5j and the
 * libmlx5-through-FFM benchmarks get the same ones, so their JVMs differ only in the code they run.
 */
final class ForkArgs
{
    /** FFM downcalls into libibverbs/libmlx5. */
    static final String NATIVE = "--enable-native-access=ALL-UNNAMED";
    /** Lets doorbell's StoreFence reach the JDK's sfence; without it mlx5j fences with a locked instruction. */
    static final String SFENCE = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";
    /** The 512-bit BlueFlame copy (doorbell's WideCopy). */
    static final String VECTOR = "--add-modules=jdk.incubator.vector";

    private ForkArgs()
    {
    }
}
