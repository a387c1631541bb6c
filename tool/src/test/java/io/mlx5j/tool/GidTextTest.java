// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.testkit.HostCommand;
import io.mlx5j.verbs.Gid;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** GidText.ntop equals glibc's inet_ntop (compiled here by gcc) on edge cases and random zero patterns. */
class GidTextTest
{
    @Test
    void matchesGlibcInetNtop() throws Exception
    {
        final List<String> hex = new ArrayList<>(List.of(
            "00000000000000000000000000000000",  // ::
            "fe8000000000000098039b03004d4500",  // link-local IB GID
            "00000000000000000000ffff0a000001",  // RoCE v2 IPv4-mapped ::ffff:10.0.0.1
            "000000000000000000000000c0a80001",  // ::192.168.0.1 (IPv4-compatible)
            "00000000000000000000000000000001",  // ::1 (not an IPv4 form)
            "00010000000000000000000000000000",  // 1::
            "00010000000100000000000000010000",  // longest run wins
            "00010000000000010000000000010000",  // equal runs: the first
            "00010002000300040005000600070008",  // no zero run
            "00010000000200030004000500060007",  // a single zero group stays "0"
            "000000000000000000000000ffff0001"));  // ::ffff:1 (not mapped: words[5] is 0)
        final Random random = new Random(42);
        for (int i = 0; i < 200; i++)
        {
            final byte[] b = new byte[16];
            for (int w = 0; w < 8; w++)
            {
                if (random.nextInt(3) != 0)
                {
                    b[2 * w] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : 0);
                    b[2 * w + 1] = (byte) random.nextInt(256);
                }
            }
            hex.add(HexFormat.of().formatHex(b));
        }
        final Path exe = HostCommand.gcc("gid_ntop", "-std=gnu11");
        final List<String> command = new ArrayList<>(List.of(exe.toString()));
        command.addAll(hex);
        final String[] expected = HostCommand.run(command).split("\n");
        assertEquals(hex.size(), expected.length);
        for (int i = 0; i < hex.size(); i++)
        {
            assertEquals(expected[i], GidText.ntop(Gid.fromBytes(HexFormat.of().parseHex(hex.get(i)))), hex.get(i));
        }
    }
}
