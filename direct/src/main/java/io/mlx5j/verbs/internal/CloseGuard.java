// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs.internal;

/**
 * A data-path object's say in the close of the control-path object it works on (a send or receive queue on its QP or
 * WQ, a poller on its CQ), registered through {@link VerbsAccess#addCloseGuard}: the control path calls it without
 * knowing the data path's classes.
 * <p>
 * Called by {@code NativeResource.close()} under the Context's lock, after the resource's dependents have closed and
 * before its arena closes, while the resource is still usable. Throwing leaves the resource open and usable (the
 * exception reaches the caller of close). What the data path checks there today: {@code -Dmlx5j.debug=true}'s close
 * rule, that a QP or CQ is closed from the thread that posts to or polls it (io.mlx5j.direct.internal.Ownership).
 */
@FunctionalInterface
public interface CloseGuard
{
    /**
     * Runs before the guarded resource is destroyed; throws to refuse the close.
     *
     * @param resource the control-path object about to be destroyed (for messages)
     */
    void beforeClose(Object resource);
}
