// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import org.junit.jupiter.api.Tag;

/** {@link CmMulticastTest} on the Ethernet link (RoCE v2 multicast GIDs), in the rdma-cm-roce execution. */
@Tag("roce")
class CmMulticastRoceTest extends CmMulticastTest
{
}
