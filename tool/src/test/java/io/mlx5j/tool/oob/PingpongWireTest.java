// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.oob;

import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.PeerInfo;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Exact wire bytes, derived by hand from rc_pingpong.c's format ("%04x:%06x:%06x:%s", sizeof msg = 52). */
class PingpongWireTest
{
    private static final Gid LINK_LOCAL = Gid.parse("fe80:0000:0000:0000:9803:9b03:004d:4500");

    @Test
    void addressMessageIs51CharactersAndANul()
    {
        final byte[] wire = PingpongWire.encodeAddress(PeerInfo.of(0x0001, 0x000105, 0x3a2b1c, LINK_LOCAL));
        // LID 4 digits, QPN 6, PSN 6, then the GID bytes fe 80 00 .. 00 98 03 9b 03 00 4d 45 00 as 32 digits
        assertArrayEquals(bytes("0001:000105:3a2b1c:fe80000000000000" + "98039b03004d4500\0"), wire);
        assertEquals(52, wire.length);
        assertEquals(PingpongWire.ADDRESS_BYTES, "0000:000000:000000:00000000000000000000000000000000".length() + 1);
    }

    @Test
    void zeroGidAndFieldMaximaKeepTheirWidths()
    {
        // ibv_rc_pingpong without -g sends an all-zero GID; a 24-bit QPN/PSN and 16-bit LID fill their columns
        assertArrayEquals(bytes("0000:000000:000000:00000000000000000000000000000000\0"),
            PingpongWire.encodeAddress(PeerInfo.of(0, 0, 0, Gid.ZERO)));
        assertArrayEquals(bytes("ffff:ffffff:ffffff:000102030405060708090a0b0c0d0e0f\0"),
            PingpongWire.encodeAddress(PeerInfo.of(0xffff, 0xffffff, 0xffffff,
                Gid.fromBytes(new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}))));
    }

    @Test
    void decodesWhatTheExamplesSend()
    {
        // as printed by rc_pingpong for "LID 0x0001, QPN 0x105002, PSN 0xf254c1" on the emulated IB port
        final PeerInfo peer =
            PingpongWire.decodeAddress(bytes("0001:105002:f254c1:00000000000000000000000000000000\0"));
        assertEquals(PeerInfo.of(1, 0x105002, 0xf254c1, Gid.ZERO), peer);
        // sscanf %x accepts upper case hex; so do we
        assertEquals(PeerInfo.of(0xabcd, 0xabcdef, 0x0a0b0c, LINK_LOCAL),
            PingpongWire.decodeAddress(bytes("ABCD:ABCDEF:0A0B0C:FE8000000000000098039B03004D4500\0")));
        // round trip
        final PeerInfo any = PeerInfo.of(0x1234, 0x56789a, 0xbcdef0, LINK_LOCAL);
        assertEquals(any, PingpongWire.decodeAddress(PingpongWire.encodeAddress(any)));
    }

    @Test
    void rejectsMalformedAddressMessagesNamingTheProblem()
    {
        final IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
            () -> PingpongWire.decodeAddress(bytes("0001:000105:3a2b1c:00\0")));
        assertTrue(size.getMessage().contains("52 bytes"), size.getMessage());
        final IllegalArgumentException nul = assertThrows(IllegalArgumentException.class,
            () -> PingpongWire.decodeAddress(bytes("0001:000105:3a2b1c:000000000000000000000000000000000")));
        assertTrue(nul.getMessage().contains("NUL"), nul.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> PingpongWire.decodeAddress(bytes("0001-000105-3a2b1c-00000000000000000000000000000000\0")));
        assertThrows(IllegalArgumentException.class,
            () -> PingpongWire.decodeAddress(bytes("0001:00010g:3a2b1c:00000000000000000000000000000000\0")));
        final byte[] binary = PingpongWire.encodeAddress(PeerInfo.of(1, 2, 3, Gid.ZERO));
        binary[3] = (byte) 0x80;
        assertThrows(IllegalArgumentException.class, () -> PingpongWire.decodeAddress(binary));
    }

    @Test
    void doneIsFiveBytes()
    {
        assertArrayEquals(new byte[] {'d', 'o', 'n', 'e', 0}, PingpongWire.encodeDone());
        assertEquals(PingpongWire.DONE_BYTES, "done".length() + 1);
        assertTrue(PingpongWire.isDone(bytes("done\0")));
        assertFalse(PingpongWire.isDone(bytes("done")));
        assertFalse(PingpongWire.isDone(bytes("dona\0")));
    }

    @Test
    void bufferMessageCarriesRkeyAddressLength()
    {
        final PeerInfo address = PeerInfo.of(1, 0x105, 0x77, Gid.ZERO);
        final PeerInfo withBuffer = address.withBuffer(0x80000123, 0x00007f12_3456_7000L, 65536);
        final byte[] wire = PingpongWire.encodeBuffer(withBuffer);
        assertArrayEquals(bytes("80000123:00007f1234567000:0000000000010000\0"), wire);
        assertEquals(PingpongWire.BUFFER_BYTES, wire.length);
        assertEquals(withBuffer, PingpongWire.decodeBuffer(address, wire));
        // the full unsigned range survives
        final PeerInfo max = address.withBuffer(-1, -1L, Long.MAX_VALUE);
        assertEquals(max, PingpongWire.decodeBuffer(address, PingpongWire.encodeBuffer(max)));
        assertThrows(IllegalArgumentException.class,
            () -> PingpongWire.decodeBuffer(address, bytes("80000123:00007f1234567000;0000000000010000\0")));
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
