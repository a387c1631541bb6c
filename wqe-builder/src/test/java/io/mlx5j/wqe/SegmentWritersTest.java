// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every segment writer, at a ring address ({@code put}, through RingStores) and in a segment ({@code set}), writes
 * exactly the bytes of the PRM layouts, here spelled out by hand from rdma-core v44 providers/mlx5/mlx5dv.h
 * (mlx5_wqe_ctrl_seg, mlx5_wqe_data_seg, mlx5_wqe_raddr_seg, mlx5_wqe_inl_data_seg, mlx5_wqe_atomic_seg,
 * mlx5_wqe_datagram_seg / mlx5_wqe_av, mlx5_wqe_eth_seg, mlx5_wqe_srq_next_seg) and wqe.h's masked atomic layout.
 * The memory starts as 0xaa in every byte, so a byte a writer should leave alone but touches, or should write but
 * skips, shows in the hex.
 */
@Timeout(30)
class SegmentWritersTest
{
    private static final int SIZE = 128;

    @Test
    void ctrlSegment()
    {
        final String expect = "09123408" + "abcdef03" + "00000008" + "11223344";
        final int opmodIdxOpcode = CtrlSeg.opmodIdxOpcode(0x09, 0x1234, 0x08);
        final int qpnDs = CtrlSeg.qpnDs(0xabcdef, 3);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            CtrlSeg.put(m.address() + 16, opmodIdxOpcode, qpnDs, CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE, 0x11223344);
            assertEquals(aa(16) + expect + aa(SIZE - 32), Hex.of(m, 0, SIZE));
        }
        final MemorySegment h = heapFilled();
        CtrlSeg.set(h, 16, opmodIdxOpcode, qpnDs, CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE, 0x11223344);
        assertEquals(aa(16) + expect + aa(SIZE - 32), Hex.of(h, 0, SIZE));
    }

    @Test
    void dataSegmentAndReceiveTerminator()
    {
        final String data = "00000100" + "0a0b0c0d" + "1122334455667788";
        final String end = "00000000" + "00000100" + "0000000000000000";
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            DataSeg.put(m.address(), 0x100, 0x0a0b0c0d, 0x1122334455667788L);
            DataSeg.putTerminator(m.address() + 16);
            assertEquals(data + end + aa(SIZE - 32), Hex.of(m, 0, SIZE));
        }
        final MemorySegment h = heapFilled();
        DataSeg.set(h, 0, 0x100, 0x0a0b0c0d, 0x1122334455667788L);
        DataSeg.setTerminator(h, 16);
        assertEquals(data + end + aa(SIZE - 32), Hex.of(h, 0, SIZE));
    }

    @Test
    void raddrSegmentWritesItsReservedWordAsZero()
    {
        final String expect = "0102030405060708" + "deadbeef" + "00000000";
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            RaddrSeg.put(m.address() + 32, 0x0102030405060708L, 0xdeadbeef);
            assertEquals(aa(32) + expect + aa(SIZE - 48), Hex.of(m, 0, SIZE));
        }
        final MemorySegment h = heapFilled();
        RaddrSeg.set(h, 32, 0x0102030405060708L, 0xdeadbeef);
        assertEquals(aa(32) + expect + aa(SIZE - 48), Hex.of(h, 0, SIZE));
    }

    @Test
    void inlineHeaderIsFourBytesWithTheInlineFlag()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            InlineSeg.putHeader(m.address() + 16, 42);
            assertEquals(aa(16) + "8000002a" + aa(SIZE - 20), Hex.of(m, 0, SIZE));
        }
        final MemorySegment h = heapFilled();
        InlineSeg.setHeader(h, 16, 0x1234);
        assertEquals(aa(16) + "80001234" + aa(SIZE - 20), Hex.of(h, 0, SIZE));
    }

    @Test
    void atomicSegments()
    {
        // CAS / FAA (mlx5_wqe_atomic_seg: swap_add, compare), masked CAS 32 (swap, compare, swap_mask,
        // compare_mask), masked FAA 32 (add, field_boundary, 8 reserved bytes)
        final String cas = "1111111111111111" + "2222222222222222";
        final String masked32 = "00000001" + "00000002" + "00000003" + "00000004";
        final String fa32 = "00000005" + "00000006" + "0000000000000000";
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            AtomicSeg.put(m.address(), 0x1111111111111111L, 0x2222222222222222L);
            AtomicSeg.putMasked32(m.address() + 16, 1, 2, 3, 4);
            AtomicSeg.putMasked32(m.address() + 32, 5, 6, 0, 0);
            assertEquals(cas + masked32 + fa32 + aa(SIZE - 48), Hex.of(m, 0, SIZE));
        }
        final MemorySegment h = heapFilled();
        AtomicSeg.set(h, 0, 0x1111111111111111L, 0x2222222222222222L);
        AtomicSeg.setMasked32(h, 16, 1, 2, 3, 4);
        AtomicSeg.setMasked32(h, 32, 5, 6, 0, 0);
        assertEquals(cas + masked32 + fa32 + aa(SIZE - 48), Hex.of(h, 0, SIZE));
    }

    @Test
    void datagramSegmentInOnePieceAndSplitAcrossTheRingEnd()
    {
        final String unit0 = "1234567800000000" + "80000abc" + "357fc001";
        final String unit1 = "00000000" + "0c42a1b2" + "c3d41040" + "40312345";
        final String unit2 = "fe80000000000000" + "0002c9fffe000001";
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            final long a = m.address();
            DatagramSeg.put(a, a + 16, a + 32, 0x1234567800000000L, 0x000abc, true, 0x35, 0x7f, 0xc001,
                0x0c42a1b2c3d4L, 0x10, 0x40, 0x40312345, 0xfe80000000000000L, 0x0002c9fffe000001L);
            assertEquals(unit0 + unit1 + unit2 + aa(SIZE - 48), Hex.of(m, 0, SIZE));
        }
        // units 1 and 2 continued at the ring start: the first unit at 96, the others at 0 and 16
        final MemorySegment h = heapFilled();
        DatagramSeg.set(h, 96, 0, 16, 0x1234567800000000L, 0x000abc, true, 0x35, 0x7f, 0xc001,
            0x0c42a1b2c3d4L, 0x10, 0x40, 0x40312345, 0xfe80000000000000L, 0x0002c9fffe000001L);
        assertEquals(unit1 + unit2 + aa(64) + unit0 + aa(16), Hex.of(h, 0, SIZE));
    }

    @Test
    void ethernetSegmentFixedPartInlineHeaderAndVlanInsertion()
    {
        // rsvd0, cs_flags L3|L4, reserved, mss 1500, rsvd2, inline_hdr_sz 18, inline_hdr_start 0c 42
        final String inline = "00000000" + "c00005dc" + "00000000" + "00120c42";
        // no inline header: insert.type MLX5_ETH_WQE_INSERT_VLAN (0x8000), vlan_tci 0x0123
        final String vlan = "00000000" + "00000000" + "00000000" + "80000123";
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            EthSeg.put(m.address(), EthSeg.MLX5_ETH_WQE_L3_CSUM | EthSeg.MLX5_ETH_WQE_L4_CSUM, 1500,
                EthSeg.inlineHdrWord(18, 0x0c42));
            EthSeg.put(m.address() + 16, 0, 0, EthSeg.insertVlanWord(0x0123));
            assertEquals(inline + vlan + aa(SIZE - 32), Hex.of(m, 0, SIZE));
        }
        final MemorySegment h = heapFilled();
        EthSeg.set(h, 0, EthSeg.MLX5_ETH_WQE_L3_CSUM | EthSeg.MLX5_ETH_WQE_L4_CSUM, 1500,
            EthSeg.inlineHdrWord(18, 0x0c42));
        // a software tag in the inline copy lands at segment offset 0x1a: ethertype 0x8100, then the TCI
        EthSeg.setVlanTag(h, 0x1a, 0xe07b);
        assertEquals(inline + aa(10) + "8100e07b" + aa(SIZE - 30), Hex.of(h, 0, SIZE));
    }

    @Test
    void srqNextSegmentAndItsFreeListLink()
    {
        // rsvd0 0, next_wqe_index 0x0102, signature 0, rsvd1 (11 bytes) 0
        final String next = "00000102" + "000000000000000000000000";
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment m = filled(arena);
            SrqNextSeg.put(m.address() + 16, 0x0102);
            assertEquals(aa(16) + next + aa(SIZE - 32), Hex.of(m, 0, SIZE));
        }
        final MemorySegment h = heapFilled();
        SrqNextSeg.set(h, 0, 0x0102);
        SrqNextSeg.setNextWqeIndex(h, 16, 0x0304);
        assertEquals(next + "aaaa0304" + aa(SIZE - 20), Hex.of(h, 0, SIZE));
    }

    private static MemorySegment filled(final Arena arena)
    {
        return arena.allocate(SIZE, 64).fill((byte)0xaa);
    }

    /** A heap segment the aligned big-endian handles accept: backed by long[]. */
    private static MemorySegment heapFilled()
    {
        return MemorySegment.ofArray(new long[SIZE / 8]).fill((byte)0xaa);
    }

    private static String aa(final int bytes)
    {
        return "aa".repeat(bytes);
    }
}
