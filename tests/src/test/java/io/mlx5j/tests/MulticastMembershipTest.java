// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.raw.MulticastMembership;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MulticastMembership} on the emulated device: mlx5_0's port maps to {@code lo} through the launcher's sysfs
 * tree, a join makes the kernel hold the group on that interface ({@code /proc/net/igmp}, the list the kernel answers
 * IGMP queries from), and a close drops it. Devices without an interface are refused by name.
 */
class MulticastMembershipTest
{
    /** 239.77.1.9, as /proc/net/igmp prints it: the network-order word read as a little-endian int, in hex. */
    private static final int GROUP = 0xef4d0109;
    private static final String GROUP_IN_PROC = "09014DEF";

    @Test
    void joinHoldsTheGroupOnThePortsInterfaceUntilClose() throws IOException
    {
        assertEquals("lo", MulticastMembership.interfaceOf("mlx5_0", 1));
        assertFalse(groups("lo").contains(GROUP_IN_PROC), "not joined before the test");
        try (MulticastMembership m = MulticastMembership.join("mlx5_0", 1, GROUP))
        {
            assertTrue(m.isJoined());
            assertEquals("lo", m.networkInterface().getName());
            assertEquals(GROUP, m.group());
            assertTrue(groups("lo").contains(GROUP_IN_PROC), "the kernel holds 239.77.1.9 on lo: " + groups("lo"));
            assertEquals("MulticastMembership(239.77.1.9 on lo, mlx5_0 port 1)", m.toString());
            m.close();
            assertFalse(m.isJoined());
            assertFalse(groups("lo").contains(GROUP_IN_PROC), "left: " + groups("lo"));
        }
    }

    @Test
    void refusals()
    {
        final IllegalArgumentException unicast = assertThrows(IllegalArgumentException.class,
            () -> MulticastMembership.join("mlx5_0", 1, 0x0a000001));
        assertEquals("not an IPv4 multicast group (224.0.0.0/4): 10.0.0.1", unicast.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MulticastMembership.interfaceOf("../mlx5_0", 1));
        assertThrows(IllegalArgumentException.class, () -> MulticastMembership.interfaceOf("mlx5_0", 0));
        final IllegalStateException none = assertThrows(IllegalStateException.class,
            () -> MulticastMembership.join("mlx5_7", 1, GROUP));
        assertTrue(none.getMessage().startsWith("mlx5_7 port 1 has no network interface in sysfs"),
            none.getMessage());
    }

    /** The groups /proc/net/igmp lists under interface {@code name}. */
    private static List<String> groups(final String name) throws IOException
    {
        final List<String> lines = Files.readAllLines(Path.of("/proc/net/igmp"));
        boolean in = false;
        final java.util.ArrayList<String> out = new java.util.ArrayList<>();
        for (final String l : lines)
        {
            if (!l.startsWith("\t") && !l.startsWith("Idx"))
            {
                in = l.split("\\s+").length > 1 && l.split("\\s+")[1].equals(name);
            }
            else if (in && l.startsWith("\t"))
            {
                out.add(l.strip().split("\\s+")[0]);
            }
        }
        return out;
    }
}
