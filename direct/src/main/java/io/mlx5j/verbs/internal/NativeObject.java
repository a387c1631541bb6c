// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs.internal;

import java.lang.foreign.MemorySegment;

/**
 * The destroy call of a libibverbs object that a class outside io.mlx5j.verbs owns (io.mlx5j.raw.FlowRule's
 * {@code ibv_flow}): {@link VerbsAccess#adopt} wraps it into a resource that lives by the same rules as every
 * control-path object (registered with its Context, closed after its dependents, its views failing once closed).
 *
 * <p>Thread model: implementations are called once, by the thread that closes the resource.
 */
public interface NativeObject
{
    /**
     * Destroys the native object given its address; returns 0 or an errno. Called once, after the arena closed.
     *
     * @param address the object's address
     * @return 0, or an errno
     */
    int destroy(MemorySegment address);

    /** {@return the C destroy call, for messages} */
    String destroyCall();

    /** {@return what the resource's messages call it (the owner's {@code toString()}, with its closed state)} */
    String describe();
}
