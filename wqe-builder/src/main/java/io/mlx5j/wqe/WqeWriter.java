// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.memory.Be.BE64;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Flyweight encoder of one send WQE inside the send ring. One instance per send queue, re-wrapped for every post:
 * {@link #wrap} at the ctrl offset returned by {@link SendRing#claim}, then the segments in wire order, then
 * {@link #ctrl} last, because only then is ds known. Every segment may start at the ring's beginning when the WQE
 * reaches its end (16-byte granularity), and inline data continues at the ring start mid-segment.
 * <p>
 * Allocation-free and exception-free on valid input. Bad input (a WQE larger than the configured maximum, e.g. too
 * many SGEs or inline data too large; a misaligned or out-of-range offset) throws {@link IllegalArgumentException}
 * before anything past the limit is written.
 * <p>
 * <b>Thread confinement:</b> not thread-safe. A writer belongs to the single thread that posts to its send queue,
 * together with that queue's {@link SendRing} and doorbell.
 */
public final class WqeWriter
{
    private final int maxDs;
    private MemorySegment sq;
    private long sqMask;
    private long ctrl;
    private long cursor;
    private int ds;

    /**
     * Creates a writer for one send queue. Any thread may construct it; then it belongs to the posting thread.
     *
     * @param maxWqeBb largest WQE in 64-byte WQEBBs this queue accepts (the QP's max WQE size / 64); the resulting
     *                 ds limit is capped at {@link CtrlSeg#MAX_DS}.
     * @throws IllegalArgumentException if {@code maxWqeBb} is below 1
     */
    public WqeWriter(final int maxWqeBb)
    {
        if (maxWqeBb < 1)
        {
            throw new IllegalArgumentException("maxWqeBb must be >= 1: " + maxWqeBb);
        }
        this.maxDs = (int)Math.min((long)maxWqeBb * 4, CtrlSeg.MAX_DS);
    }

    /**
     * Point the writer at a new WQE.
     *
     * @param sq         the whole send ring: wqe_cnt * 64 bytes, wqe_cnt a power of two (mlx5dv_qp.sq.buf)
     * @param ctrlOffset byte offset of the WQE's first WQEBB in the ring, a multiple of 64
     * @return this writer
     */
    public WqeWriter wrap(final MemorySegment sq, final long ctrlOffset)
    {
        if (sq != this.sq)
        {
            final long size = sq.byteSize();
            if (size < SendRing.MLX5_SEND_WQE_BB || Long.bitCount(size) != 1)
            {
                throw new IllegalArgumentException("send ring size must be a power of two >= 64: " + size);
            }
            this.sq = sq;
            this.sqMask = size - 1;
        }
        if ((ctrlOffset & (SendRing.MLX5_SEND_WQE_BB - 1)) != 0 || ctrlOffset < 0 || ctrlOffset > sqMask)
        {
            throw new IllegalArgumentException("ctrl offset not a WQEBB inside the ring: " + ctrlOffset);
        }
        this.ctrl = ctrlOffset;
        this.cursor = ctrlOffset + CtrlSeg.LENGTH;
        this.ds = 1;
        return this;
    }

    /**
     * Remote address segment ({@link RaddrSeg}); reserved word written as 0.
     *
     * @param raddr the remote virtual address
     * @param rkey the remote key of the remote memory region
     * @return this writer
     */
    public WqeWriter raddr(final long raddr, final int rkey)
    {
        reserve(1, "raddr segment");
        RaddrSeg.set(sq, cursor, raddr, rkey);
        return advance(1);
    }

    /**
     * XRC segment ({@link XrcSeg}) of an XRC INI QP's WQE; reserved bytes written as 0.
     *
     * @param srqn the remote XRC SRQ number
     * @return this writer
     */
    public WqeWriter xrc(final int srqn)
    {
        reserve(1, "XRC segment");
        XrcSeg.set(sq, cursor, srqn);
        return advance(1);
    }

    /**
     * One gather entry ({@link DataSeg}), as mlx5dv_set_data_seg encodes it.
     *
     * @param byteCount the number of bytes
     * @param lkey the local key of the memory region holding the buffer
     * @param addr the virtual address of the buffer
     * @return this writer
     */
    public WqeWriter data(final int byteCount, final int lkey, final long addr)
    {
        reserve(1, "data segment (too many SGEs)");
        DataSeg.set(sq, cursor, byteCount, lkey, addr);
        return advance(1);
    }

    /**
     * Inline data segment ({@link InlineSeg}): header {@code byteCount | MLX5_INLINE_SEG}, the bytes, zero padding
     * to 16 bytes. Bytes that reach the ring end continue at offset 0.
     *
     * @param src the bytes to inline
     * @param srcOffset offset of the first byte in {@code src}
     * @param byteCount the number of bytes
     * @return this writer
     */
    public WqeWriter inline(final MemorySegment src, final long srcOffset, final int byteCount)
    {
        if (byteCount < 0 || srcOffset < 0 || srcOffset > src.byteSize() - byteCount)
        {
            throw new IllegalArgumentException("inline source [" + srcOffset + ", +" + byteCount +
                ") is outside a segment of " + src.byteSize() + " bytes");
        }
        final int units = InlineSeg.ds(byteCount);
        reserve(units, "inline data");
        final long at = cursor;
        // Padding is zeroed so that a WQE's bytes never depend on what a previous lap left in the ring. It lies in
        // the last 16-byte unit: zero that unit first (two stores), then header and payload overwrite its front.
        final long last = (at + ((long)(units - 1) << 4)) & sqMask;
        BE64.set(sq, last, 0L);
        BE64.set(sq, last + 8, 0L);
        InlineSeg.setHeader(sq, at, byteCount);
        final long ringSize = sqMask + 1;
        final long data = at + InlineSeg.DATA_OFFSET;   // never past the ring end: at is 16-aligned
        final long first = Math.min(byteCount, ringSize - data);
        MemorySegment.copy(src, srcOffset, sq, data, first);
        if (first < byteCount)
        {
            MemorySegment.copy(src, srcOffset + first, sq, 0, byteCount - first);
        }
        return advance(units);
    }

    /**
     * Inline data segment carrying two pieces back to back ({@code aLen} bytes of {@code a}, then {@code bLen} of
     * {@code b}) under one byte_count, as libmlx5's set_data_inl_seg packs every SGE of an IBV_SEND_INLINE request:
     * the rest of a header template and a payload, without a gather copy.
     *
     * @param a the first piece's segment
     * @param aOffset offset of the first piece in {@code a}
     * @param aLen bytes of the first piece
     * @param b the second piece's segment
     * @param bOffset offset of the second piece in {@code b}
     * @param bLen bytes of the second piece
     * @return this writer
     */
    public WqeWriter inline(final MemorySegment a, final long aOffset, final int aLen, final MemorySegment b,
        final long bOffset, final int bLen)
    {
        checkSource(a, aOffset, aLen);
        checkSource(b, bOffset, bLen);
        final int byteCount = aLen + bLen;
        final int units = InlineSeg.ds(byteCount);
        reserve(units, "inline data");
        final long at = cursor;
        zeroLastUnit(at, units);
        InlineSeg.setHeader(sq, at, byteCount);
        final long data = at + InlineSeg.DATA_OFFSET;   // never past the ring end: at is 16-aligned
        copyToRing(a, aOffset, data, aLen);
        copyToRing(b, bOffset, (data + aLen) & sqMask, bLen);
        return advance(units);
    }

    /**
     * Ethernet segment ({@link EthSeg}) of a raw-packet WQE with the first {@code inlineHdrSz} bytes of the frame
     * inline, copied from {@code src}: what libmlx5's raw branch of _mlx5_post_send writes (zeroed segment,
     * cs_flags, inline_hdr_sz, the bytes from inline_hdr_start on) for an inline header of 0 or 18 bytes, and what
     * set_tso_eth_seg writes for longer ones (the bytes continue into the next units, at the ring end at offset 0).
     * The padding after the header, in its last unit, is written as zeros.
     *
     * @param csFlags OR of {@link EthSeg#MLX5_ETH_WQE_L3_CSUM} / {@link EthSeg#MLX5_ETH_WQE_L4_CSUM}
     * @param mss     LSO segment size; 0 for a plain send
     * @param src the bytes to inline
     * @param srcOffset offset of the first byte in {@code src}
     * @param inlineHdrSz frame bytes to inline in the segment
     * @return this writer
     */
    public WqeWriter eth(final int csFlags, final int mss, final MemorySegment src, final long srcOffset,
        final int inlineHdrSz)
    {
        checkSource(src, srcOffset, inlineHdrSz);
        checkFirst();
        final int units = EthSeg.ds(inlineHdrSz);
        reserve(units, "Ethernet segment (inline header)");
        final long at = cursor;
        zeroLastUnit(at, units);
        final int start = (inlineHdrSz > 0 ? (src.get(JAVA_BYTE, srcOffset) & 0xff) << 8 : 0) |
            (inlineHdrSz > 1 ? src.get(JAVA_BYTE, srcOffset + 1) & 0xff : 0);
        EthSeg.set(sq, at, csFlags, mss, EthSeg.inlineHdrWord(inlineHdrSz, start));
        if (inlineHdrSz > 2)
        {
            copyToRing(src, srcOffset + 2, at + EthSeg.INLINE_HDR_OFFSET, inlineHdrSz - 2);
        }
        return advance(units);
    }

    /**
     * Ethernet segment that inserts an 802.1Q tag {@code 0x8100, tci} after the two MACs of the frame in {@code
     * src}. With {@code inlineHdrSz} 0 the device inserts it (insert.type {@link EthSeg#INSERT_VLAN});
     * otherwise the tag is written into the inline copy, which then holds {@code inlineHdrSz} bytes of the tagged
     * frame: the 12 MAC bytes, the tag, and {@code inlineHdrSz - 16} more bytes of {@code src} from offset 12. The
     * caller's gather list must then start at {@code src} offset {@code inlineHdrSz - 4}.
     *
     * @param inlineHdrSz 0, or at least {@link EthSeg#MLX5_ETH_L2_INLINE_HEADER_SIZE}
     * @param csFlags OR of {@link EthSeg#MLX5_ETH_WQE_L3_CSUM} / {@link EthSeg#MLX5_ETH_WQE_L4_CSUM}
     * @param mss LSO segment size; 0 for a plain send
     * @param src the bytes to inline
     * @param srcOffset offset of the first byte in {@code src}
     * @param tci the 802.1Q tag control information
     * @return this writer
     */
    public WqeWriter ethVlan(final int csFlags, final int mss, final MemorySegment src, final long srcOffset,
        final int inlineHdrSz, final int tci)
    {
        checkFirst();
        if (inlineHdrSz == 0)
        {
            reserve(1, "Ethernet segment");
            EthSeg.set(sq, cursor, csFlags, mss, EthSeg.insertVlanWord(tci));
            return advance(1);
        }
        if (inlineHdrSz < EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE)
        {
            throw new IllegalArgumentException("a VLAN tag written into the inline header needs at least " +
                EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE + " inline bytes: " + inlineHdrSz);
        }
        checkSource(src, srcOffset, inlineHdrSz - EthSeg.VLAN_HLEN);
        final int units = EthSeg.ds(inlineHdrSz);
        reserve(units, "Ethernet segment (inline header)");
        final long at = cursor;
        zeroLastUnit(at, units);
        EthSeg.set(sq, at, csFlags, mss, EthSeg.inlineHdrWord(inlineHdrSz,
            (src.get(JAVA_BYTE, srcOffset) & 0xff) << 8 | (src.get(JAVA_BYTE, srcOffset + 1) & 0xff)));
        // Tagged frame bytes 2..11 (the rest of the MACs) go to 0x10..0x19 of the segment, the tag to 0x1a..0x1d, the
        // rest of the header from 0x1e on. The segment starts 16 bytes into a WQEBB, so nothing before 0x20 can
        // reach the ring end, and 0x1a / 0x1c are 2-byte aligned.
        final long macs = at + EthSeg.INLINE_HDR_OFFSET;
        final long tag = at + EthSeg.INLINE_HDR_START_OFFSET + EthSeg.VLAN_TAG_OFFSET;
        MemorySegment.copy(src, srcOffset + 2, sq, macs, EthSeg.VLAN_TAG_OFFSET - 2);
        EthSeg.setVlanTag(sq, tag, tci);
        copyToRing(src, srcOffset + EthSeg.VLAN_TAG_OFFSET, tag + EthSeg.VLAN_HLEN,
            inlineHdrSz - EthSeg.VLAN_HLEN - EthSeg.VLAN_TAG_OFFSET);
        return advance(units);
    }

    private void zeroLastUnit(final long at, final int units)
    {
        final long last = (at + ((long)(units - 1) << 4)) & sqMask;
        BE64.set(sq, last, 0L);
        BE64.set(sq, last + 8, 0L);
    }

    /** Copy {@code n} bytes to ring offset {@code to}, continuing at offset 0 past the ring end. */
    private void copyToRing(final MemorySegment src, final long from, final long to, final int n)
    {
        final long ringSize = sqMask + 1;
        final long first = Math.min(n, ringSize - to);
        MemorySegment.copy(src, from, sq, to, first);
        if (first < n)
        {
            MemorySegment.copy(src, from + first, sq, 0, n - first);
        }
    }

    /** The Ethernet segment directly follows the ctrl segment (PRM send WQE layout; libmlx5 writes it there). */
    private void checkFirst()
    {
        if (ds != 1)
        {
            throw new IllegalArgumentException("the Ethernet segment must follow the ctrl segment, not unit " + ds);
        }
    }

    private static void checkSource(final MemorySegment src, final long srcOffset, final int n)
    {
        if (n < 0 || srcOffset < 0 || srcOffset > src.byteSize() - n)
        {
            throw new IllegalArgumentException("inline source [" + srcOffset + ", +" + n +
                ") is outside a segment of " + src.byteSize() + " bytes");
        }
    }

    /**
     * Atomic compare-and-swap operand segment (opcode MLX5_OPCODE_ATOMIC_CS, after {@link #raddr}).
     *
     * @param swap the swap value
     * @param compare the compare value
     * @return this writer
     */
    public WqeWriter atomicCas(final long swap, final long compare)
    {
        reserve(1, "atomic segment");
        AtomicSeg.set(sq, cursor, swap, compare);
        return advance(1);
    }

    /**
     * Atomic fetch-and-add operand segment (opcode MLX5_OPCODE_ATOMIC_FA); compare written as 0.
     *
     * @param add the value to add
     * @return this writer
     */
    public WqeWriter atomicFa(final long add)
    {
        reserve(1, "atomic segment");
        AtomicSeg.set(sq, cursor, add, 0L);
        return advance(1);
    }

    /**
     * Masked 64-bit CAS operands (32 bytes; opcode ATOMIC_MASKED_CS, opmod
     * {@link Mlx5Opcode#MLX5_OPMOD_EXT_ATOMIC_64}).
     *
     * @param swap the swap value
     * @param compare the compare value
     * @param swapMask the bits of {@code swap} that are written
     * @param compareMask the bits that take part in the comparison
     * @return this writer
     */
    public WqeWriter maskedCas64(final long swap, final long compare, final long swapMask, final long compareMask)
    {
        reserve(2, "masked atomic segment");
        AtomicSeg.set(sq, cursor, swap, compare);
        advance(1);   // the second half (swap_add_mask, compare_mask) may start at the ring beginning
        AtomicSeg.set(sq, cursor, swapMask, compareMask);
        return advance(1);
    }

    /**
     * Masked 64-bit FAA operands (opcode ATOMIC_MASKED_FA, opmod {@link Mlx5Opcode#MLX5_OPMOD_EXT_ATOMIC_64}).
     *
     * @param add the value to add
     * @param fieldBoundary the field_boundary mask: carries do not cross these bit positions
     * @return this writer
     */
    public WqeWriter maskedFa64(final long add, final long fieldBoundary)
    {
        reserve(1, "masked atomic segment");
        AtomicSeg.set(sq, cursor, add, fieldBoundary);
        return advance(1);
    }

    /**
     * Masked 32-bit CAS operands (opcode ATOMIC_MASKED_CS, opmod {@link Mlx5Opcode#MLX5_OPMOD_EXT_ATOMIC_32}).
     *
     * @param swap the swap value
     * @param compare the compare value
     * @param swapMask the bits of {@code swap} that are written
     * @param compareMask the bits that take part in the comparison
     * @return this writer
     */
    public WqeWriter maskedCas32(final int swap, final int compare, final int swapMask, final int compareMask)
    {
        reserve(1, "masked atomic segment");
        AtomicSeg.setMasked32(sq, cursor, swap, compare, swapMask, compareMask);
        return advance(1);
    }

    /**
     * Masked 32-bit FAA operands (opcode ATOMIC_MASKED_FA, opmod {@link Mlx5Opcode#MLX5_OPMOD_EXT_ATOMIC_32}).
     *
     * @param add the value to add
     * @param fieldBoundary the field_boundary mask: carries do not cross these bit positions
     * @return this writer
     */
    public WqeWriter maskedFa32(final int add, final int fieldBoundary)
    {
        reserve(1, "masked atomic segment");
        AtomicSeg.setMasked32(sq, cursor, add, fieldBoundary, 0, 0);   // 8 reserved bytes written as 0
        return advance(1);
    }

    /**
     * Datagram segment / address vector ({@link DatagramSeg}), field for field what mlx5dv_set_dgram_seg writes.
     *
     * @param key       64-bit key; for UD the qkey goes in the upper 32 bits ({@code (long) qkey << 32})
     * @param rmac      destination MAC, the 6 bytes in the low 48 bits, first wire byte most significant
     * @param rgidHi    bytes 0..7 of the remote GID, first byte most significant
     * @param rgidLo    bytes 8..15 of the remote GID
     * @param grhGidFl  see {@link DatagramSeg#grhGidFlIb} / {@link DatagramSeg#grhGidFlRoce}; 0 for IB without GRH
     * @param dqpDct the destination QP number (or DCT number), 24 bits
     * @param extended whether the address vector is extended (sets {@link DatagramSeg#MLX5_EXTENDED_UD_AV})
     * @param statRateSl the stat_rate_sl byte ({@link DatagramSeg#statRateSlIb} / {@link DatagramSeg#statRateSlRoce})
     * @param flMlid the fl_mlid byte (source path bits over InfiniBand)
     * @param rlid the remote LID (InfiniBand), or the UDP source port (RoCE v2)
     * @param tclass the GRH traffic class
     * @param hopLimit the GRH hop limit
     * @return this writer
     */
    public WqeWriter datagram(final long key, final int dqpDct, final boolean extended, final int statRateSl,
        final int flMlid, final int rlid, final long rmac, final int tclass, final int hopLimit, final int grhGidFl,
        final long rgidHi, final long rgidLo)
    {
        reserve(3, "datagram segment");
        // its three units one by one: the second and third may continue at the ring start
        final long unit0 = cursor;
        final long unit1 = (unit0 + 16) & sqMask;
        final long unit2 = (unit1 + 16) & sqMask;
        DatagramSeg.set(sq, unit0, unit1, unit2, key, dqpDct, extended, statRateSl, flMlid, rlid, rmac, tclass,
            hopLimit, grhGidFl, rgidHi, rgidLo);
        return advance(3);
    }

    /**
     * Control segment, written last. Equivalent to mlx5dv_set_ctrl_seg(seg, wqeIndex, opcode, opmod, qpn, fmCeSe,
     * ds, 0, imm) with this writer's ds.
     *
     * @param wqeIndex {@link SendRing#wqeIndex()} of this WQE (only the low 16 bits are used)
     * @param fmCeSe   OR of {@code CtrlSeg.MLX5_WQE_CTRL_*}
     * @param imm      immediate data or invalidate rkey as a number; stored big-endian, i.e. the wire bytes are
     *                 those of ibv's {@code imm_data = htobe32(imm)}
     * @param opmod the opcode modifier ({@link Mlx5Opcode#MLX5_OPMOD_EXT_ATOMIC_64} for the masked 64-bit atomics)
     * @param opcode the {@link Mlx5Opcode} value
     * @param qpn the QP number
     * @return this writer
     */
    public WqeWriter ctrl(final int opmod, final int opcode, final int wqeIndex, final int qpn, final int fmCeSe,
        final int imm)
    {
        CtrlSeg.set(sq, ctrl, CtrlSeg.opmodIdxOpcode(opmod, wqeIndex, opcode), CtrlSeg.qpnDs(qpn, ds), fmCeSe, imm);
        return this;
    }

    /**
     * 16-byte units written so far, including the ctrl segment.
     *
     * @return the number of 16-byte units
     */
    public int ds()
    {
        return ds;
    }

    /**
     * WQEBBs this WQE occupies: the producer counter advances by this much.
     *
     * @return the number of WQEBBs
     */
    public int numWqebb()
    {
        return SendRing.numWqebb(ds);
    }

    /**
     * Ring offset of this WQE's ctrl segment (what the doorbell copies from).
     *
     * @return the offset
     */
    public long ctrlOffset()
    {
        return ctrl;
    }

    /** {@return the largest ds this writer accepts} */
    public int maxDs()
    {
        return maxDs;
    }

    private void reserve(final int units, final String what)
    {
        if (ds + units > maxDs)
        {
            throw new IllegalArgumentException(what + " needs " + units
                + " more 16-byte units but the WQE already has " +
                ds + " of at most " + maxDs);
        }
    }

    private WqeWriter advance(final int units)
    {
        cursor = (cursor + ((long)units << 4)) & sqMask;
        ds += units;
        return this;
    }
}
