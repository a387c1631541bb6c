// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.testkit.EmulatedDevice;

import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The emulated kernel's count of this process's live verbs objects before and after a test: every QP, CQ, MR, PD
 * and AH a connection attempt made must be gone at the end, failures included. (librdmacm keeps its own device
 * context open for the life of the process, so contexts are compared the same way: no new ones may stay.)
 */
final class Leaks
{
    private final Map<String, Long> before;

    Leaks()
    {
        // librdmacm opens its device context the first time an id binds; let that happen before the snapshot
        try (EventChannel channel = EventChannel.create())
        {
            channel.createId(PortSpace.TCP).bind(new java.net.InetSocketAddress("127.0.0.1", 0));
        }
        before = new TreeMap<>(EmulatedDevice.live());
    }

    void assertNone()
    {
        final Map<String, Long> after = new TreeMap<>(EmulatedDevice.live());
        assertEquals(before, after, "live emulated objects before vs after");
    }

    /**
     * Right after a failed attempt, while the test's own context, PD, CQ and MR are still open: the attempt's QP
     * must already be destroyed (closing the context later would hide a QP the attempt leaked).
     */
    void assertNoQpLeft()
    {
        assertEquals(before.get("qps"), EmulatedDevice.live().get("qps"), "QPs live after the failed attempt");
    }
}
