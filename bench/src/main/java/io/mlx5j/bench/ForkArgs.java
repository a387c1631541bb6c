// SPDX-License-Identifier: Apache-2.0
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

    /**
     * Fails a fork that lacks {@link #SFENCE}'s export. JMH's {@code -jvmArgsAppend} on the command line replaces a
     * benchmark's {@code @Fork(jvmArgsAppend)} rather than adding to it, so a hand-added JVM flag (a CompileCommand,
     * PrintInlining) silently measures another mlx5j: checked ring stores and locked-instruction fences. A few runs
     * were measured that way before anyone noticed; every benchmark on the emulated device now refuses to start.
     */
    static void requireExport()
    {
        if (!Object.class.getModule().isExported("jdk.internal.misc", ForkArgs.class.getModule()))
        {
            throw new IllegalStateException("this fork was started without " + SFENCE + " (JMH's -jvmArgsAppend "
                + "replaces @Fork(jvmArgsAppend): repeat " + NATIVE + " " + SFENCE + " " + VECTOR + " in it)");
        }
    }
}
