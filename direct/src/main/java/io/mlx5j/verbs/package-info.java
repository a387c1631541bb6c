// SPDX-License-Identifier: Apache-2.0
/**
 * The control path: every object is created, moved through its states and destroyed through libibverbs over FFM,
 * and a queue's raw rings are handed to the data path ({@code io.mlx5j.direct}, {@code io.mlx5j.raw}) as the records
 * mlx5dv_init_obj reports:
 * <pre>
 *   DeviceList / Device --open--> Context --allocPd--> ProtectionDomain --register--> MemoryRegion
 *                                    |                         |--createQp--> QueuePair --rings()--> QpRing
 *                                    |                         |--createSrq-> SharedReceiveQueue --ring()--> SrqRing
 *                                    |                         |--createWq--> WorkQueue --rings()--> WqRing
 *                                    |                         '--createAh--> AddressHandle --av()--> mlx5_wqe_av
 *                                    |--createCompletionChannel--> CompletionChannel
 *                                    '--createCq--> CompletionQueue --ring()--> CqRing
 * </pre>
 * Nothing here imports the data path: a data-path object that must have a say in a close registers a guard
 * ({@code io.mlx5j.verbs.internal.CloseGuard}).
 * <h2>Lifetime</h2>
 * Every object is {@link java.lang.AutoCloseable} and owns an arena that scopes every segment viewing its native
 * memory, rings included: after close, any use throws IllegalStateException and no access reaches freed memory.
 * Closing an object closes the objects created on it first; {@link io.mlx5j.verbs.Context#close()} closes everything
 * under it, newest first. See {@link io.mlx5j.verbs.NativeResource}.
 * <h2>Failures</h2>
 * A failing libibverbs/libmlx5 call throws {@link io.mlx5j.verbs.VerbsException} with the C function name and
 * errno; invalid arguments throw IllegalArgumentException before any native call.
 * <h2>Threads</h2>
 * Creation, state changes and close are serialised on the Context. The ring segments are shared-arena segments and
 * may be handed to the one thread that posts to (or polls) that queue; the data-path classes state their own
 * confinement.
 */
package io.mlx5j.verbs;
