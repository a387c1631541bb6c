// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Exact dumps of hand-made WQEs whose values are known from the PRM / mlx5dv.h: each hex string is written field by
 * field (the comment above it says what each word holds), so the expected text checks the decoder, not an encoder.
 */
class WqeDumpTest
{
    @Test
    void rdmaWriteWithOneSge()
    {
        // opmod_idx_opcode 0x00000508 (index 5, RDMA_WRITE 0x08); qpn_ds 0x00012303 (qpn 0x123, ds 3);
        // signature 0, rsvd 0, fm_ce_se 0x0a (CQ_UPDATE 2 << 2 | SOLICITED 1 << 1); imm 0; raddr seg; data seg
        final String hex = "00000508 00012303 0000000a 00000000  00007f0012345678 5eed0001 00000000 "
            + " 00000064 00001234 00007f00aabbcc00";
        final WqeDump d = WqeDump.send(hex, QpKind.RC);
        assertEquals("""
            ctrl      opcode=RDMA_WRITE opmod=0x00 wqe_index=5 qpn=0x000123 ds=3 signature=0x00 rsvd=0x0000 \
            fm_ce_se=CQ_UPDATE|SOLICITED imm=0x00000000
            raddr     raddr=0x00007f0012345678 rkey=0x5eed0001 rsvd=0x00000000
            data[0]   byte_count=100 lkey=0x00001234 addr=0x00007f00aabbcc00
            """, d.text());
        assertEquals("CQ_UPDATE|SOLICITED", d.field("ctrl.fm_ce_se"));
        assertEquals("0x00001234", d.field("data[0].lkey"));
    }

    @Test
    void sendWithInlineDataAndFence()
    {
        // SEND 0x0a at index 7, qpn 0x456, ds 2, fm_ce_se 0x88 (FENCE 4 << 5 | CQ_UPDATE); inline "hello"
        final WqeDump d = WqeDump.send("0000070a 00045602 00000088 00000000  80000005 68656c6c 6f000000 00000000",
            QpKind.RC);
        assertEquals("""
            ctrl      opcode=SEND opmod=0x00 wqe_index=7 qpn=0x000456 ds=2 signature=0x00 rsvd=0x0000 \
            fm_ce_se=FENCE|CQ_UPDATE imm=0x00000000
            inline    byte_count=MLX5_INLINE_SEG|5 data=68656c6c6f pad=00000000000000
            """, d.text());
    }

    @Test
    void udSendWithImmediateAndRoceAddressVector()
    {
        // SEND_IMM 0x0b, ds 5; AV: qkey, dqp_dct 0x80000123 (MLX5_EXTENDED_UD_AV | 0x123), stat_rate_sl 0x05,
        // rlid 0x17, rmac, tclass 3, hop_limit 64, grh_gid_fl 0x40140007 (GRH, sgid 1, flow 0x40007), rgid
        final String hex = "0000000b 00000705 00000008 deadbeef  11111111 00000000 80000123 05000017 00000000 "
            + "0c42a1b2c3d4 0340 40140007 00000000000000000000ffffc0a80102  00000010 00000042 0000000000001000";
        assertEquals("""
            ctrl      opcode=SEND_IMM opmod=0x00 wqe_index=0 qpn=0x000007 ds=5 signature=0x00 rsvd=0x0000 \
            fm_ce_se=CQ_UPDATE imm=0xdeadbeef
            datagram  qkey=0x11111111 rsvd=0x00000000 dqp_dct=EXTENDED_UD_AV|0x000123 stat_rate_sl=0x05 \
            fl_mlid=0x00 rlid=0x0017 rsvd0=0x00000000 rmac=0c:42:a1:b2:c3:d4 tclass=0x03 hop_limit=64 grh=1 \
            sgid_index=1 flow_label=0x40007 rgid=0:0:0:0:0:ffff:c0a8:102
            data[0]   byte_count=16 lkey=0x00000042 addr=0x0000000000001000
            """, WqeDump.send(hex, QpKind.UD).text());
    }

    @Test
    void rawEthernetSendWithInlineIpv4UdpHeaders()
    {
        // ds 6: ctrl, Ethernet segment of 64 bytes (cs_flags 0xc0, inline_hdr_sz 42: 14 + 20 + 8), one data seg
        final String hex = "0000010a 00000a06 00000008 00000000  00000000 c0000000 00000000 002a "
            + "0c42a1b2c3d4 0c42a1000001 0800 4500 001c 0001 4000 4011 0000 c0a80101 e0000001 3039 04d2 0008 0000 "
            + "0000 0000 0000 0000  00000008 00000077 0000000000002000";
        assertEquals("""
            ctrl      opcode=SEND opmod=0x00 wqe_index=1 qpn=0x00000a ds=6 signature=0x00 rsvd=0x0000 \
            fm_ce_se=CQ_UPDATE imm=0x00000000
            eth       swp_offs=0x00000000 cs_flags=L3_CSUM|L4_CSUM swp_flags=0x00 mss=0 flow_table_metadata=0x00000000 \
            inline_hdr_sz=42
            eth.l2    dst=0c:42:a1:b2:c3:d4 src=0c:42:a1:00:00:01 ethertype=IPv4
            eth.ipv4  version=4 ihl=5 tos=0x00 total_length=28 id=0x0001 frag_off=0x4000 ttl=64 protocol=UDP \
            check=0x0000 saddr=192.168.1.1 daddr=224.0.0.1
            eth.udp   source=12345 dest=1234 len=8 check=0x0000
            eth       pad=0000000000000000
            data[0]   byte_count=8 lkey=0x00000077 addr=0x0000000000002000
            """, WqeDump.send(hex, QpKind.RAW_PACKET).text());
    }

    @Test
    void rawEthernetVlanTaggedIpv6TcpAndVlanInsertion()
    {
        // inline_hdr_sz 78 = 14 + 4 (802.1Q, pcp 5, vid 100) + 40 (IPv6, next header TCP) + 20 (TCP, SYN|ACK)
        final String hex = "0000000a 00000b07 00000000 00000000  00000000 00000000 00000000 004e "
            + "020000000001 020000000002 8100 a064 86dd 60000000 0014 06 40 "
            + "fe800000000000000000000000000001 fe800000000000000000000000000002 "
            + "0050 1f90 00000001 00000002 50 12 ffff 0000 0000 000000000000000000000000";
        final WqeDump d = WqeDump.send(hex, QpKind.RAW_PACKET);
        assertEquals("5", d.field("eth.vlan.pcp"));
        assertEquals("100", d.field("eth.vlan.vid"));
        assertEquals("IPv6", d.field("eth.vlan.ethertype"));
        assertEquals("TCP", d.field("eth.ipv6.next_header"));
        assertEquals("fe80:0:0:0:0:0:0:2", d.field("eth.ipv6.daddr"));
        assertEquals("ACK|SYN", d.field("eth.tcp.flags"));
        assertEquals("8080", d.field("eth.tcp.dest"));
        // the device inserts the tag: bytes 12..15 are MLX5_ETH_WQE_INSERT_VLAN | type, then the TCI
        final WqeDump insert = WqeDump.send("0000000a 00000b03 00000000 00000000  00000000 00000000 00000000 "
            + "8000 2064  0000003c 00000077 0000000000002000", QpKind.RAW_PACKET);
        assertEquals("VLAN|0x0000", insert.field("eth.insert"));
        assertEquals("pcp=1,dei=0,vid=100", insert.field("eth.vlan_tci"));
        assertEquals("60", insert.field("data[0].byte_count"));
    }

    @Test
    void atomicFetchAddAndCompareSwap()
    {
        final WqeDump fa = WqeDump.send("00000912 00000104 00000008 00000000  0000000000001000 00000777 00000000 "
            + " 0000000000000001 0000000000000000  00000008 00000777 0000000000003000", QpKind.RC);
        assertEquals("""
            ctrl      opcode=ATOMIC_FA opmod=0x00 wqe_index=9 qpn=0x000001 ds=4 signature=0x00 rsvd=0x0000 \
            fm_ce_se=CQ_UPDATE imm=0x00000000
            raddr     raddr=0x0000000000001000 rkey=0x00000777 rsvd=0x00000000
            atomic    swap_add=0x0000000000000001 compare=0x0000000000000000
            data[0]   byte_count=8 lkey=0x00000777 addr=0x0000000000003000
            """, fa.text());
        final WqeDump cs = WqeDump.send("00000a11 00000104 00000000 00000000  0000000000001000 00000777 00000000 "
            + " 2222222222222222 1111111111111111  00000008 00000777 0000000000003000", QpKind.RC);
        assertEquals("ATOMIC_CS", cs.field("ctrl.opcode"));
        assertEquals("0x2222222222222222", cs.field("atomic.swap_add"));
        assertEquals("0x1111111111111111", cs.field("atomic.compare"));
        assertEquals("0", cs.field("ctrl.fm_ce_se"));
    }

    @Test
    void truncatedWqeAndBytesPastDsAreNamed()
    {
        final WqeDump shortOne = WqeDump.send("00000912 00000105 00000008 00000000  0000000000001000 00000777 "
            + "00000000  0000000000000001 0000000000000000  00000008 00000777 0000000000003000", QpKind.RC);
        assertEquals("ds 5 is 80 bytes, 64 given", shortOne.field("wqe.truncated"));
        // ds 1: the NOP is its ctrl segment; what follows in the array is not decoded
        final WqeDump nop = WqeDump.send("00000300 00000101 00000008 00000000  ffffffff ffffffff ffffffff ffffffff",
            QpKind.RC);
        assertEquals("ctrl      opcode=NOP opmod=0x00 wqe_index=3 qpn=0x000001 ds=1 signature=0x00 rsvd=0x0000 "
            + "fm_ce_se=CQ_UPDATE imm=0x00000000\n", nop.text());
        assertThrows(IllegalArgumentException.class, () -> WqeDump.send("0000 0z", QpKind.RC));
        assertThrows(IllegalArgumentException.class, () -> WqeDump.send("000", QpKind.RC));
    }

    @Test
    void sendFromRingFollowsTheWqeAcrossTheRingEnd()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment ring = a.allocate(4 * 64);
            final byte[] wqe = Bytes.parseHex("0000030a 00000105 00000008 00000000  80000034 "
                + "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                + "202122232425262728292a2b2c2d2e2f30313233 0000000000000000");
            assertEquals(80, wqe.length);
            // WQEBB 3 is the last of the ring: its second 16 bytes wrap to offset 0
            MemorySegment.copy(wqe, 0, ring, ValueLayout.JAVA_BYTE, 192, 64);
            MemorySegment.copy(wqe, 64, ring, ValueLayout.JAVA_BYTE, 0, 16);
            final WqeDump d = WqeDump.sendFromRing(ring, 4, 7, QpKind.RC);
            assertEquals("MLX5_INLINE_SEG|52", d.field("inline.byte_count"));
            assertEquals("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                + "202122232425262728292a2b2c2d2e2f30313233", d.field("inline.data"));
            assertEquals(WqeDump.send(wqe, QpKind.RC).text(), d.text());
        }
    }

    @Test
    void receiveWqeEndsAtTheInvalidLkey()
    {
        final WqeDump d = WqeDump.recv("00000040 00000055 0000000000004000  00000000 00000100 0000000000000000 "
            + " ffffffff ffffffff ffffffffffffffff");
        assertEquals("""
            data[0]   byte_count=64 lkey=0x00000055 addr=0x0000000000004000
            data[1]   byte_count=0 lkey=0x00000100(MLX5_INVALID_LKEY) addr=0x0000000000000000
            """, d.text());
        final WqeDump srq = WqeDump.srqRecv(Bytes.parseHex("0000 0003 00 0000000000000000000000 "
            + " 00000040 00000055 0000000000004000"));
        assertEquals("""
            next      rsvd0=0x0000 next_wqe_index=3 signature=0x00
            data[0]   byte_count=64 lkey=0x00000055 addr=0x0000000000004000
            """, srq.text());
    }

    @Test
    void ringWhoseCtrlClaimsMoreThanTheRingIsRefusedByName()
    {
        try (Arena arena = Arena.ofConfined())
        {
            // 2 WQEBBs (128 bytes); qpn_ds 0x00012340 at WQEBB 1: ds 64 = 1,024 bytes
            final MemorySegment sq = arena.allocate(128);
            sq.set(ValueLayout.JAVA_INT_UNALIGNED, 64 + 4, Integer.reverseBytes(0x00012340));
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WqeDump.linearize(sq, 2, 1));
            assertEquals("the WQE at WQEBB 1 claims ds 64 (1024 bytes), more than the whole ring of 128 bytes",
                e.getMessage());
        }
    }
}
