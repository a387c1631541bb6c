// SPDX-License-Identifier: Apache-2.0
/**
 * The one floor for device memory access, under every other mlx5j package: byte order ({@link io.mlx5j.memory.Be},
 * the only place that knows the wire is big-endian and the only place that swaps), the whole address space as a
 * segment ({@link io.mlx5j.memory.AddressSpace}), unchecked loads and stores by address through
 * {@code jdk.internal.misc.Unsafe} ({@link io.mlx5j.memory.InternalUnsafe}, {@link io.mlx5j.memory.RingStores} for
 * rings and CQEs, {@link io.mlx5j.memory.AddressStores} for doorbells), and 512-bit copies
 * ({@link io.mlx5j.memory.WideRingCopy}).
 *
 * <p>Two JVM options are opted into, probed once at class initialisation and never required: with
 * {@code --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED} the stores by address go through Unsafe (without it,
 * through {@link io.mlx5j.memory.AddressSpace#ALL}'s checked accesses); with
 * {@code --add-modules jdk.incubator.vector} on a CPU with 512-bit vectors the copies take one 64-byte store per block
 * (without it the incubator module is never touched). {@code -Dmlx5j.ring.unsafe=false} and
 * {@code -Dmlx5j.doorbell.vector=false} turn either off.
 *
 * <p>Nothing here checks an address: callers pass addresses inside memory they have just checked is alive. For the
 * other mlx5j modules only, not for applications.
 */
package io.mlx5j.memory;
