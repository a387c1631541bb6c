// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RoCE addressing on the emulated device with an Ethernet link (surefire execution "roce" in this module's pom):
 * no LIDs, GIDs from the MAC (index 0 RoCE v1, index 1 RoCE v2, as emulator/mlx5emu writes them), and connected QPs
 * reach RTR only with a GRH (GID index, hop limit).
 */
@Tag("roce")
class RoceControlPathTest
{
    private static final Gid LINK_LOCAL = Gid.parse("fe80:0000:0000:0000:9a03:9bff:fe4d:4500");
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Context context;

    @BeforeEach
    void open()
    {
        context = Context.open("mlx5_0");
    }

    @AfterEach
    void close()
    {
        context.close();
    }

    @Test
    void portIsEthernetWithMacDerivedGids()
    {
        final PortAttributes port = context.queryPort(1);
        assertTrue(port.isEthernet(), port.toString());
        assertTrue(port.isActive(), port.toString());
        assertEquals(0, port.lid());
        assertEquals(LINK_LOCAL, context.queryGid(1, 0));
        assertEquals(LINK_LOCAL, context.queryGid(1, 1));
    }

    @Test
    void rcPairConnectsOverGlobalRoutes()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(64);
        final QueuePair a = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final QueuePair b = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final PortAttributes port = context.queryPort(1);
        final Gid gid = context.queryGid(1, 1);
        final PeerInfo infoA = PeerInfo.of(0, a.qpn(), 0x10, gid);
        final PeerInfo infoB = PeerInfo.of(0, b.qpn(), 0x20, gid);
        final AddressVector path = AddressVector.global(1, gid, 1, 64, 0);
        a.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), infoB, path, infoA.psn());
        b.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), infoA, path, infoB.psn());
        assertEquals(QpState.RTS, a.state());
        assertEquals(QpState.RTS, b.state());

        final QueuePair uc = pd.createQp(QpConfig.builder(QpType.UC, cq).build());
        uc.connect(1, Access.LOCAL_WRITE | Access.REMOTE_WRITE, 0, port.activeMtu(), infoA, path, 0x30);
        assertEquals(QpState.RTS, uc.state());
    }

    @Test
    void udAddressHandleCarriesTheGrh()
    {
        final ProtectionDomain pd = context.allocPd();
        final AddressHandle ah = pd.createAh(AddressVector.global(1, LINK_LOCAL, 1, 64, 0));
        final MemorySegment av = ah.av();
        // struct mlx5_wqe_av: rgid at 32, hop_limit at 27, grh_gid_fl at 28 = sgid_index << 20 | flow_label; on RoCE
        // libmlx5 leaves the GRH bit (1 << 30) clear, it is reserved there (providers/mlx5/verbs.c mlx5_create_ah)
        final byte[] rgid = av.asSlice(32, 16).toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(LINK_LOCAL.toBytes(), rgid);
        assertEquals(64, av.get(ValueLayout.JAVA_BYTE, 27) & 0xff);
        assertEquals(1 << 20, av.get(BE32, 28));
        // rmac (offset 20) is the kernel's answer (create_ah response dmac): the MAC inside the link-local GID
        final byte[] rmac = av.asSlice(20, 6).toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(new byte[] {(byte) 0x98, 0x03, (byte) 0x9b, 0x4d, 0x45, 0x00}, rmac,
            java.util.HexFormat.of().formatHex(rmac));
    }
}
