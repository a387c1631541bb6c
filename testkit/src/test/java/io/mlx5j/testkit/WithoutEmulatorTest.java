// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What EmulatedDevice does in a JVM without the emulator (this module's tests run without it): it says so, every
 * hook fails with the same clear exception (never an ExceptionInInitializerError from a holder class), and what
 * needs no device works: strict-mode report parsing, the C environment, free ports, the launcher's environment.
 * The hooks themselves run on the emulated device in direct's, tool's and tests' test suites.
 */
class WithoutEmulatorTest
{
    @Test
    void saysItIsNotOnTheEmulatedDeviceAndEveryHookFailsAlike()
    {
        assertNull(System.getenv("LD_PRELOAD"), "this module's tests run without the emulator");
        assertFalse(EmulatedDevice.isLoaded());
        final List<Runnable> hooks = List.of(EmulatedDevice::requireLoaded, EmulatedDevice::strictViolations,
            () -> EmulatedDevice.qp(1), () -> EmulatedDevice.cq(1), () -> EmulatedDevice.srq(1),
            () -> EmulatedDevice.mr(1), () -> EmulatedDevice.uidx(1), EmulatedDevice::live,
            () -> EmulatedDevice.cmListeners(EmulatedDevice.RDMA_PS_TCP, 7471));
        for (int round = 0; round < 2; round++)
        {
            for (final Runnable hook : hooks)
            {
                final IllegalStateException ex = assertThrows(IllegalStateException.class, hook::run);
                assertEquals("this process does not run on the emulated device: libmlx5emu.so is not loaded "
                    + "(LD_PRELOAD=null)", ex.getMessage());
            }
        }
    }

    @Test
    void strictReportsAreTheEnginesTwoLineFormsAndAnythingElseThatSaysStrict()
    {
        final String err = String.join("\n", "mlx5emu[4242]: engine thread on CPU 1",
            "mlx5emu[4242] STRICT: QP 0x000107 WQE 3: ds 5 does not cover the segments (6)",
            "rping: connected",
            "mlx5emu[4242]: 1 strict-mode violations",
            "some other STRICT line");
        assertEquals(List.of("mlx5emu[4242] STRICT: QP 0x000107 WQE 3: ds 5 does not cover the segments (6)",
            "mlx5emu[4242]: 1 strict-mode violations", "some other STRICT line"), EmulatedDevice.strictReports(err));
        assertEquals(List.of(), EmulatedDevice.strictReports("mlx5emu[1]: engine off\nclean\n"));
        assertEquals(List.of(), EmulatedDevice.strictReports(""));
    }

    @Test
    void setenvAndUnsetenvChangeWhatCsGetenvReads() throws Throwable
    {
        final Linker linker = Linker.nativeLinker();
        final MethodHandle getenv = linker.downcallHandle(linker.defaultLookup().find("getenv").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        final String name = "MLX5J_TESTKIT_KNOB";
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment n = a.allocateFrom(name);
            assertEquals(0, ((MemorySegment) getenv.invokeExact(n)).address());
            EmulatedDevice.setenv(name, "1500");
            assertEquals("1500", ((MemorySegment) getenv.invokeExact(n)).reinterpret(16).getString(0));
            EmulatedDevice.setenv(name, "7");
            assertEquals("7", ((MemorySegment) getenv.invokeExact(n)).reinterpret(16).getString(0));
            EmulatedDevice.unsetenv(name);
            assertEquals(0, ((MemorySegment) getenv.invokeExact(n)).address());
        }
        assertNull(System.getenv(name), "Java's copy of the environment does not change");
        assertThrows(IllegalStateException.class, () -> EmulatedDevice.setenv("A=B", "1"), "EINVAL: '=' in a name");
    }

    @Test
    void freeTcpPortCanBeBound() throws Exception
    {
        final int port = EmulatedDevice.freeTcpPort();
        assertTrue(port > 0 && port < 65536, "port " + port);
        try (ServerSocket s = new ServerSocket(port))
        {
            assertEquals(port, s.getLocalPort());
        }
    }

    @Test
    void launcherEnvironmentIsTheKeyValueLinesOfTheFile() throws Exception
    {
        final Path file = Path.of("target", "launcher-env-test.env");
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n", "make: building build/libmlx5emu.so", "SYSFS_PATH=/tmp/x",
            "not a variable=1", "LD_PRELOAD=/a/b.so", "MLX5EMU_IPS=0=127.0.0.1 0=::1", "lower=case", ""));
        final String before = System.getProperty(EmulatedDevice.ENV_FILE_PROPERTY);
        System.setProperty(EmulatedDevice.ENV_FILE_PROPERTY, file.toString());
        try
        {
            final Map<String, String> env = EmulatedDevice.launcherEnvironment();
            assertEquals(List.of("SYSFS_PATH", "LD_PRELOAD", "MLX5EMU_IPS"), List.copyOf(env.keySet()));
            assertEquals("0=127.0.0.1 0=::1", env.get("MLX5EMU_IPS"));
            System.clearProperty(EmulatedDevice.ENV_FILE_PROPERTY);
            assertThrows(IllegalStateException.class, EmulatedDevice::launcherEnvironment);
        }
        finally
        {
            if (before == null)
            {
                System.clearProperty(EmulatedDevice.ENV_FILE_PROPERTY);
            }
            else
            {
                System.setProperty(EmulatedDevice.ENV_FILE_PROPERTY, before);
            }
        }
    }

    @Test
    void environmentDifferencesNameEachVariable()
    {
        final String path = System.getenv("PATH");
        final Map<String, String> launcher = new LinkedHashMap<>();
        launcher.put("PATH", path);
        assertEquals(List.of(), EmulatedDevice.environmentDifferences(launcher));
        launcher.put("MLX5J_TESTKIT_UNSET", "1");
        launcher.put("PATH", path + ":/nowhere");
        launcher.put("LD_PRELOAD", "/x/libmlx5emu.so");
        assertEquals(List.of("PATH: the launcher sets " + path + ":/nowhere, this JVM has " + path,
            "MLX5J_TESTKIT_UNSET is not set in this JVM; the launcher sets it to 1",
            "LD_PRELOAD is not set in this JVM; the launcher sets it to /x/libmlx5emu.so"),
            EmulatedDevice.environmentDifferences(launcher));
    }
}
