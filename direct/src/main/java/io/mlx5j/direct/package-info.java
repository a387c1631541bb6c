/**
 * The mlx5j direct path. The control path (this part) creates every object through libibverbs over FFM and hands
 * the raw queues to Java with mlx5dv_init_obj:
 * <pre>
 *   DeviceList / Device --open--> Context --allocPd--> ProtectionDomain --register--> MemoryRegion
 *                                    |                         |--createQp--> QueuePair --rings()--> QpRings
 *                                    |                         |--createSrq-> SharedReceiveQueue --ring()--> SrqRing
 *                                    |                         '--createAh--> AddressHandle --av()--> mlx5_wqe_av
 *                                    |--createCompletionChannel--> CompletionChannel
 *                                    '--createCq--> CompletionQueue --ring()--> CqRing
 * </pre>
 * <h2>Lifetime</h2>
 * Every object is {@link java.lang.AutoCloseable} and owns an arena that scopes every segment viewing its native
 * memory, rings included: after close, any use throws IllegalStateException and no access reaches freed memory. An
 * object refuses to close while objects created on it are open; {@link io.mlx5j.direct.Context#close()} closes
 * everything under it, newest first. See {@link io.mlx5j.direct.NativeResource}.
 * <h2>Failures</h2>
 * A failing libibverbs/libmlx5 call throws {@link io.mlx5j.direct.VerbsException} with the C function name and
 * errno; invalid arguments throw IllegalArgumentException before any native call.
 * <h2>Threads</h2>
 * Creation, state changes and close are serialised on the Context. The ring segments are shared-arena segments and
 * may be handed to the one thread that posts to (or polls) that queue; the data-path classes state their own
 * confinement.
 */
package io.mlx5j.direct;
