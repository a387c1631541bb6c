// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.foreign.MemorySegment;

/**
 * The whole address space as one segment, for accesses by raw address: the checked fallback of {@link RingStores},
 * the 512-bit copies, and the data path's copies of inline payloads and scatter-to-CQE data.
 *
 * <p>Thread model: static and stateless; any thread.
 */
public final class AddressSpace
{
    /**
     * Every address of the process. Post methods take raw addresses (an MR's buffer plus an offset, as verbs SGEs do),
     * and inline payloads and scatter-to-CQE data are copied through this one segment, so no segment is created per
     * post. It bypasses bounds checks by design: the caller's address and length are what the NIC would use.
     */
    public static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private AddressSpace()
    {
    }
}
