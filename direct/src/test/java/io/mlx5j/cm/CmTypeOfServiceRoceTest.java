// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import org.junit.jupiter.api.Tag;

/** {@link CmTypeOfServiceTest} on the Ethernet link (the TOS becomes the GRH traffic class): rdma-cm-roce execution. */
@Tag("roce")
class CmTypeOfServiceRoceTest extends CmTypeOfServiceTest
{
}
