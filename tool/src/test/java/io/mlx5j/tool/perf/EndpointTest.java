// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.doorbell.DoorbellMode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The memory a perf endpoint starts with, on the emulated device. */
class EndpointTest
{
    @Test
    void patternsDifferEverywhereAndTheSpunOnByteIsNotTheFirstMarker()
    {
        for (long i = 0; i < 4096; i++)
        {
            assertNotEquals(RcEndpoint.sendPattern(i), RcEndpoint.recvPattern(i), "offset " + i);
        }
        // the hazard: a write_lat of 108 bytes spins on offset 107, whose receive pattern is the first marker
        assertEquals(1, RcEndpoint.recvPattern(107));
        final PerfOptions o = PerfOptions.parse("write_lat", "-s", "108");
        try (Context context = Context.open("mlx5_0");
             ProtectionDomain pd = context.allocPd();
             RcEndpoint e = PerfCommand.endpoint(context, pd, o))
        {
            e.directPath(DoorbellMode.DOORBELL, false);
            e.prepare(o, true);
            assertEquals(0, e.buffer.get(ValueLayout.JAVA_BYTE, 107), "cleared before the first iteration");
            assertEquals(RcEndpoint.recvPattern(106), e.buffer.get(ValueLayout.JAVA_BYTE, 106));
            assertEquals(RcEndpoint.sendPattern(107), e.buffer.get(ValueLayout.JAVA_BYTE, e.areaSize + 107));
            assertEquals(128, e.areaSize, "the message size rounded up to 64 bytes");
        }
    }
}
