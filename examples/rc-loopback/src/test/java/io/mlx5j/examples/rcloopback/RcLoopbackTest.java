// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.examples.rcloopback;

import io.mlx5j.direct.WcOpcode;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the loopback on the emulated device that pom.xml wires into surefire from the mlx5j-emulator artifact (the
 * block docs/emulator-artifact.md shows): an InfiniBand mlx5_0.
 */
class RcLoopbackTest
{
    @Test
    void theWriteCompletesAndItsBytesLand()
    {
        final RcLoopback.Result r = RcLoopback.run("mlx5_0", 1);
        assertEquals(new RcLoopback.Result("mlx5_0", "InfiniBand", RcLoopback.WR_ID, WcOpcode.RDMA_WRITE, "SUCCESS",
            true, true), r);
    }

    @Test
    void theDeviceIsTheEmulatedOne()
    {
        // the surefire block points SYSFS_PATH at the tree the launcher wrote under target/
        assertTrue(System.getenv("SYSFS_PATH").endsWith("/target/mlx5emu"), System.getenv("SYSFS_PATH"));
        assertTrue(System.getenv("LD_PRELOAD").endsWith("/target/mlx5emu/libmlx5emu.so"), System.getenv("LD_PRELOAD"));
    }
}
