// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In a JVM without the emulator (this module's tests run without it), a test annotated {@link EmulatedConnectX}
 * fails before it runs, with the surefire block that would preload the emulator in its message.
 */
class EmulatedConnectXWithoutEmulatorTest
{
    @Test
    void theFailureGivesTheSurefireBlock()
    {
        final EmulatedConnectX want = Annotated.class.getAnnotation(EmulatedConnectX.class);
        final String block = EmulatedConnectXExtension.surefireBlock(want);
        assertTrue(block.contains("<LD_PRELOAD>${project.build.directory}/mlx5emu/libmlx5emu.so</LD_PRELOAD>"), block);
        assertTrue(block.contains("--env ${project.build.directory}/mlx5emu --link eth --devices 2"), block);
        assertTrue(block.contains("<MLX5EMU_STRICT>1</MLX5EMU_STRICT>"), block);
        final org.junit.jupiter.api.extension.ExtensionConfigurationException e = org.junit.jupiter.api.Assertions
            .assertThrows(org.junit.jupiter.api.extension.ExtensionConfigurationException.class,
                () -> EmulatedConnectXExtension.requireDevice(want));
        assertTrue(e.getMessage().startsWith("this test runs on the emulated ConnectX, but the emulator is not "
            + "preloaded in this JVM (LD_PRELOAD=null);\nadd to the test module's pom.xml"), e.getMessage());
        assertTrue(e.getMessage().contains(block), e.getMessage());
    }

    @EmulatedConnectX(link = "eth", devices = 2)
    static final class Annotated
    {
    }
}
