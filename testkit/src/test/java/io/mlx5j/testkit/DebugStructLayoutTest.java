// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * EmulatedDevice's layouts are the emulator's structs: src/test/c/emu_debug_offsets.c, compiled by gcc against
 * emulator/src/mlx5emu_debug.h, prints every struct's size and every member's offset and size, and the Java
 * layouts must say exactly the same, no line more or less. The probe also checks the hooks' signatures at compile
 * time, so a changed function fails here as well.
 */
class DebugStructLayoutTest
{
    @Test
    void everyStructAndMemberEqualsTheCompilersView()
    {
        final Path exe = HostCommand.gcc("emu_debug_offsets", "-std=gnu11", "-I",
            Path.of("..", "emulator", "src").toString());
        final Map<String, String> c = new TreeMap<>();
        for (final String line : HostCommand.run(List.of(exe.toString())).split("\n"))
        {
            final int space = line.indexOf(' ');
            c.put(line.substring(0, space), line.substring(space + 1));
        }
        final Map<String, String> java = new TreeMap<>();
        for (final StructLayout s : List.of(EmulatedDevice.QP, EmulatedDevice.CQ, EmulatedDevice.SRQ,
            EmulatedDevice.MR, EmulatedDevice.LIVE))
        {
            final String struct = s.name().orElseThrow();
            java.put(struct, s.byteSize() + " 0");
            long offset = 0;
            for (final MemoryLayout m : s.memberLayouts())
            {
                if (!(m instanceof PaddingLayout))
                {
                    java.put(struct + "." + m.name().orElseThrow(), offset + " " + m.byteSize());
                }
                offset += m.byteSize();
            }
        }
        assertFalse(c.isEmpty(), "the probe printed nothing");
        assertEquals(c, java, "C (expected) against EmulatedDevice's layouts");
    }
}
