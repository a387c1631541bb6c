// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Gid;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perftest's destination text (perftest_communication.h KEY_PRINT_FMT and KEY_PRINT_FMT_GID): the exact bytes, the
 * fixed message sizes, and the way back. The interop tests run it against the perftest binaries themselves.
 */
class PerftestWireTest
{
    private static final Gid GID = Gid.fromBytes(new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 2, 0x11,
        0x22, (byte) 0xff, (byte) 0xfe, 0x33, 0x44, 0x55});

    @Test
    void withoutGid() throws IOException
    {
        final PerftestWire.Dest d = new PerftestWire.Dest(1, 16, 0x1002, 0xa8cbcf, 0x10000, 0x7f6fec292000L,
            Gid.ZERO, 0);
        final byte[] msg = PerftestWire.formatDest(d, false);
        assertEquals(59, msg.length);
        // "%04x:%04x:%06x:%06x:%08x:%016llx:%08x" and the NUL: 58 characters fill it exactly
        assertEquals("0001:0010:001002:a8cbcf:00010000:00007f6fec292000:00000000\0",
            new String(msg, StandardCharsets.US_ASCII));
        assertEquals(d, PerftestWire.parseDest(msg, false));
    }

    @Test
    void withGid() throws IOException
    {
        final PerftestWire.Dest d = new PerftestWire.Dest(0, 4, 0xabcdef, 0x123456, 0xdeadbeef, -2L, GID, 0);
        final byte[] msg = PerftestWire.formatDest(d, true);
        assertEquals(108, msg.length);
        assertEquals("0000:0004:abcdef:123456:deadbeef:fffffffffffffffe:fe:80:00:00:00:00:00:00:02:11:22:ff:fe:33:"
            + "44:55:00000000:\0", new String(msg, StandardCharsets.US_ASCII));
        assertEquals(d, PerftestWire.parseDest(msg, true));
        // the other side without -x: the text does not parse as the short format, and the message says why
        final IOException e = assertThrows(IOException.class,
            () -> PerftestWire.parseDest(Arrays.copyOf(PerftestWire.formatDest(d, false), 108), true));
        assertTrue(e.getMessage().contains("-x"), e.getMessage());
    }
}
