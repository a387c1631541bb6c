// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.verbs.Context;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Libmlx5Release}: rdma-core's library names, a maps file, and the library this test JVM really maps. */
class Libmlx5ReleaseTest
{
    @Test
    void releaseFromRdmaCoreLibraryNames()
    {
        assertEquals(44, Libmlx5Release.release("/usr/lib/x86_64-linux-gnu/libmlx5.so.1.24.44.0"));
        assertEquals(65, Libmlx5Release.release("/work/build/rdma-core-65.0/prefix/lib/libmlx5.so.1.27.65.0"));
        assertEquals(Libmlx5Release.UNKNOWN, Libmlx5Release.release("/usr/lib/libmlx5.so.1"));
        assertEquals(Libmlx5Release.UNKNOWN, Libmlx5Release.release("/opt/lib/libmlx5.so.1.24.9999999999.0"));
        assertEquals(Libmlx5Release.UNKNOWN, Libmlx5Release.release(null));
    }

    @Test
    void firstLibmlx5MappingOfAMapsFile()
    {
        assertEquals(65, Libmlx5Release.fromMaps(List.of(
            "7f0000000000-7f0000001000 r--p 00000000 08:01 11 /opt/emu/build/libmlx5emu.so",
            "7f0000001000-7f0000002000 r-xp 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0",
            "7f0000002000-7f0000003000 r-xp 00000000 08:01 13 /p/lib/libmlx5.so.1.27.65.0",
            "7f0000003000-7f0000004000 r-xp 00000000 08:01 14 /usr/lib/x86_64-linux-gnu/libmlx5.so.1.24.44.0",
            "7ffd00000000-7ffd00001000 rw-p 00000000 00:00 0 [stack]")));
        assertEquals(Libmlx5Release.UNKNOWN, Libmlx5Release.fromMaps(List.of(
            "7f0000000000-7f0000001000 r--p 00000000 08:01 11 /opt/emu/build/libmlx5emu.so",
            "7ffd00000000-7ffd00001000 rw-p 00000000 00:00 0 [stack]")));
    }

    @Test
    void theLibraryThisProcessMapsOnceADeviceIsOpen() throws Exception
    {
        try (Context ctx = Context.open("mlx5_0"))
        {
            final int fromFile = Libmlx5Release.fromMaps(Files.readAllLines(Path.of("/proc/self/maps")));
            assertTrue(fromFile >= 44, "libmlx5 mapped with a release in its name, got " + fromFile);
            assertEquals(fromFile, Libmlx5Release.running());
        }
    }
}
