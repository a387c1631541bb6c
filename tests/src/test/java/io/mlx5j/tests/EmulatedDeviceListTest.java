// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.DeviceList;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * From the JVM, under the launcher, ibv_get_device_list through FFM lists the emulated device.
 * Checked twice: a child JVM started as {@code emulator/mlx5emu -- java ...} with the emulator variables removed
 * from its inherited environment (so only the launcher can have set them), and this surefire JVM, whose
 * environment must equal what {@code mlx5emu --env} prints.
 */
class EmulatedDeviceListTest
{
    @Test
    void childJvmUnderTheLauncherListsTheEmulatedDevice() throws Exception
    {
        final String launcher = System.getProperty("mlx5emu.launcher");
        assertNotNull(launcher, "system property mlx5emu.launcher not set (run through Maven)");
        final List<String> command = new ArrayList<>(List.of(launcher, "--devices", "2", "--fabric", "mlx5j-e2e-child",
            "--"));
        command.addAll(ChildProcess.javaCommand(ListDevices.class));
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet()
            .removeIf(k -> k.equals("LD_PRELOAD") || k.equals("SYSFS_PATH") || k.startsWith("MLX5EMU_"));
        final Process process = pb.start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM hung: " + out);
        assertEquals(0, process.exitValue(), out);
        // mlx5emu writes node GUIDs 9803:9b03:004d:45<index> for --devices 2
        assertEquals(List.of("count=2", "device=mlx5_0 guid=98039b03004d4500", "device=mlx5_1 guid=98039b03004d4501"),
            out.lines().toList(), out);
    }

    @Test
    void thisJvmSeesTheEmulatedDeviceThroughTheDirectApi() throws IOException
    {
        final Map<String, String> launcher = EmulatedDevice.launcherEnvironment();
        assertTrue(launcher.containsKey("LD_PRELOAD"), "mlx5emu --env printed no environment");
        assertEquals(List.of(), EmulatedDevice.environmentDifferences(launcher));
        try (DeviceList list = DeviceList.open())
        {
            assertEquals(List.of("mlx5_0"), list.names());
            assertTrue(list.get("mlx5_0").isMlx5());
        }
        try (Context context = Context.open("mlx5_0"))
        {
            assertEquals(1, context.queryDevice().physPortCnt());
        }
    }
}
