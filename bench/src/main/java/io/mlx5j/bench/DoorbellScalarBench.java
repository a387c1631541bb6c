// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import org.openjdk.jmh.annotations.Fork;

/**
 * {@link DoorbellBench} on the scalar BlueFlame copy (eight ascending 8-byte stores per block), as a JVM without
 * {@code --add-modules jdk.incubator.vector} or without AVX-512 runs it.
 */
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, "-Dmlx5j.doorbell.vector=false"})
public class DoorbellScalarBench extends DoorbellBench
{
}
