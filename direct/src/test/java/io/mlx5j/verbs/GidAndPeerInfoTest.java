// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.testkit.HostCommand;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Value types, checked against the text forms other tools produce (sysfs GIDs, rdma-core's pingpong message). */
class GidAndPeerInfoTest
{
    @Test
    void gidParsesAndPrintsTheSysfsForm()
    {
        final Gid gid = Gid.parse("fe80:0000:0000:0000:9803:9b03:004d:4500");
        assertEquals(0xfe80000000000000L, gid.subnetPrefix());
        assertEquals(0x98039b03004d4500L, gid.interfaceId());
        assertEquals("fe80:0000:0000:0000:9803:9b03:004d:4500", gid.toString());
        final byte[] bytes = gid.toBytes();
        assertEquals((byte) 0xfe, bytes[0]);
        assertEquals((byte) 0x00, bytes[15]);
        assertEquals((byte) 0x45, bytes[14]);
        assertEquals(gid, Gid.fromBytes(bytes));
        assertThrows(IllegalArgumentException.class, () -> Gid.parse("fe80::1"));
    }

    /**
     * The message equals what a C program prints with the pingpong examples' recipe (each 32-bit word of the raw GID
     * printed as htobe32 with %08x), compiled by gcc here.
     */
    @Test
    void pingpongMessageMatchesTheCFormatting() throws Exception
    {
        final Path exe = HostCommand.gcc("pingpong_msg", "-std=gnu11");
        final Gid gid = Gid.parse("fe80:0000:0000:0000:9803:9b03:004d:4501");
        final PeerInfo peer = PeerInfo.of(0x1a, 0xabcdef, 0x123456, gid);
        final String c = HostCommand.run(List.of(exe.toString(), "26", Integer.toString(0xabcdef),
            Integer.toString(0x123456), gid.toString().replace(":", "")));
        assertEquals(c.strip(), peer.toPingpongMessage());
        assertEquals(PeerInfo.PINGPONG_MESSAGE_BYTES, peer.toPingpongMessage().length() + 1);
        assertEquals(peer, PeerInfo.parsePingpongMessage(peer.toPingpongMessage() + "\0"));
        assertThrows(IllegalArgumentException.class, () -> PeerInfo.parsePingpongMessage("0001:000002:000003:00"));
        assertThrows(IllegalArgumentException.class, () -> PeerInfo.of(0, 1 << 24, 0, Gid.ZERO));
    }
}
