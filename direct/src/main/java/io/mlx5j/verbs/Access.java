// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvMr;

/** Memory access flags (enum ibv_access_flags) for MRs and for a QP's remote access. */
public final class Access
{
    public static final int LOCAL_WRITE = IbvMr.IBV_ACCESS_LOCAL_WRITE;
    public static final int REMOTE_WRITE = IbvMr.IBV_ACCESS_REMOTE_WRITE;
    public static final int REMOTE_READ = IbvMr.IBV_ACCESS_REMOTE_READ;
    public static final int REMOTE_ATOMIC = IbvMr.IBV_ACCESS_REMOTE_ATOMIC;
    /** Everything a peer may do to an RDMA target buffer; remote write/atomic require local write (verbs rule). */
    public static final int ALL_REMOTE = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private Access()
    {
    }
}
