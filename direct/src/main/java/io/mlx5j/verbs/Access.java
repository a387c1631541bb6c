// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvMr;

/**
 * Memory access flags (enum ibv_access_flags) for MRs and for a QP's remote access.
 *
 * <p>Thread model: constants only; any thread.
 */
public final class Access
{
    /**
     * {@code IBV_ACCESS_LOCAL_WRITE}: the device may write the memory (needed for receives, READ and atomic results).
     */
    public static final int LOCAL_WRITE = IbvMr.IBV_ACCESS_LOCAL_WRITE;
    /** {@code IBV_ACCESS_REMOTE_WRITE}: peers may RDMA WRITE into the memory. */
    public static final int REMOTE_WRITE = IbvMr.IBV_ACCESS_REMOTE_WRITE;
    /** {@code IBV_ACCESS_REMOTE_READ}: peers may RDMA READ the memory. */
    public static final int REMOTE_READ = IbvMr.IBV_ACCESS_REMOTE_READ;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}: peers may run atomics on the memory. */
    public static final int REMOTE_ATOMIC = IbvMr.IBV_ACCESS_REMOTE_ATOMIC;
    /** Everything a peer may do to an RDMA target buffer; remote write/atomic require local write (verbs rule). */
    public static final int ALL_REMOTE = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private Access()
    {
    }
}
