// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.testkit.EmulatedDevice;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The test JVM runs under the environment that {@code emulator/mlx5emu --env DIR} prints (surefire
 * environmentVariables in this module's pom). If the launcher starts to need another variable or value, this fails
 * and says which, instead of the device tests failing mysteriously.
 */
class EmulatorEnvTest
{
    @Test
    void surefireEnvironmentIsWhatTheLauncherPrints()
    {
        final Map<String, String> launcher = EmulatedDevice.launcherEnvironment();
        assertTrue(launcher.containsKey("SYSFS_PATH") && launcher.containsKey("LD_PRELOAD"),
            "mlx5emu --env printed no environment");
        assertEquals(List.of(), EmulatedDevice.environmentDifferences(launcher));
    }
}
