// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.rping;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link RpingInteropTest}'s exchanges on the Ethernet-link emulated device (surefire's "roce" execution): rdma_cm
 * resolves the address to the port's RoCEv2 GID, the QPs route by GRH.
 */
@Tag("roce")
class RpingRoceInteropTest
{
    @Test
    void mlx5jClientAgainstRpingServer() throws Exception
    {
        RpingInteropTest.javaClientAgainstCServer(64, 10, "127.0.0.1");
        RpingInteropTest.javaClientAgainstCServer(4096, 10, "::1");
    }

    @Test
    void rpingClientAgainstMlx5jServer() throws Exception
    {
        RpingInteropTest.cClientAgainstJavaServer(64, 10, "127.0.0.1");
        RpingInteropTest.cClientAgainstJavaServer(4096, 10, "::1");
    }
}
