// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.memory.RingStores;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.EthSeg;
import io.mlx5j.wqe.InlineSeg;
import io.mlx5j.wqe.WqeWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The template send's WQE body ({@link io.mlx5j.raw.RawSendQueue}'s one-call send of a header template and a payload),
 * written straight into the ring: the Ethernet segment with the inline header, then the rest of the template and the
 * payload as gather entries or as one inline segment. The same bytes as {@link WqeWriter}'s {@code eth}, {@code data}
 * and two-piece {@code inline} (RawSendParityTest posts template frames at every ring position and compares them with
 * libmlx5's; RawTemplateSendTest compares them with the staging path's for inline headers libmlx5 does not write).
 * Why not through the writer: the template send has already settled what the writer's wrap, reserve and cursor
 * checks and field writes track (the claim, the ds limit), the same reason as {@link FastSendEncoder}.
 * <p>
 * Offsets passed in and returned are ring offsets that may run past the ring end by less than one ring; each store
 * masks them. Only the first WQEBB of a WQE is known to lie before the ring end. The 8- and 4-byte stores and the
 * payload copy go through {@link RingStores} at {@code base + offset}, {@code base} being the ring address from
 * SendQueue's liveness check of this post (its close rule keeps that safe, as for {@link FastSendEncoder}).
 * The template's bytes are copied from its segment into the ring ({@link #copyTemplate}): with one liveness check
 * and raw loads when the template lives in a confined arena of the posting thread, otherwise with
 * {@code MemorySegment.copy}, which checks every access (a template may live in any arena, or on the heap). Confined
 * to the queue's thread.
 */
public final class EthFrameEncoder
{
    /** The template's first two bytes (a template may start at any address). */
    private static final ValueLayout.OfShort BE16_UNALIGNED =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Never started: a segment it may access is not confined to one thread ({@link #copyTemplate}). */
    private static final Thread NO_THREAD = new Thread("mlx5j-no-thread");

    private final MemorySegment ring;
    private final long ringMask;
    /**
     * The last template {@link #copyTemplate} found native and confined to {@link #rawReader}: both facts are fixed
     * for a segment's life (a confined arena's owner never changes), so a later post from the same thread with the
     * same segment checks only that it is still alive.
     */
    private MemorySegment rawTemplate;
    private Thread rawReader = NO_THREAD;

    /**
     * An encoder over one send ring; confined to the ring's posting thread.
     *
     * @param ring the send ring, a power of two bytes
     */
    public EthFrameEncoder(final MemorySegment ring)
    {
        this.ring = ring;
        this.ringMask = ring.byteSize() - 1;
    }

    /**
     * The Ethernet segment after the ctrl segment at {@code ctrl}: checksum flags, no LSO, the first {@code hdr}
     * bytes of {@code h} inline (bytes 0 and 1 in inline_hdr_start, the rest from inline_hdr on), its padding
     * zero.
     *
     * @param base the ring's address, from this post's liveness check
     * @param ctrl ring offset of the ctrl segment
     * @param csFlags checksum offload flags ({@code EthSeg.MLX5_ETH_WQE_*})
     * @param h the header template
     * @param hdr header bytes inlined in the Ethernet segment
     * @return the offset after the segment (not masked)
     */
    public long eth(final long base, final long ctrl, final int csFlags, final MemorySegment h, final int hdr)
    {
        final long at = ctrl + CtrlSeg.LENGTH;  // inside the first WQEBB: never past the ring end
        final int units = EthSeg.ds(hdr);
        // padding after the inline header is zero; with up to 2 header bytes the two words below write the whole
        // (single) unit, and a header that ends on a unit boundary leaves no padding (the ConnectX-5 default of 0
        // and the L2 minimum of 18 both): no zero stores then (JMH: every store into a fresh WQEBB counts)
        final int end = (EthSeg.INLINE_HDR_START_OFFSET + hdr) & 15;
        if (hdr > 2 && end != 0)
        {
            RingStores.zeroPadding(base + ((at + ((long)(units - 1) << 4)) & ringMask), end);
        }
        final int start = hdr > 1 ? Short.toUnsignedInt(h.get(BE16_UNALIGNED, 0)) :
            hdr == 1 ? (h.get(JAVA_BYTE, 0) & 0xff) << 8 : 0;
        EthSeg.put(base + at, csFlags, 0, EthSeg.inlineHdrWord(hdr, start));
        if (hdr > 2)
        {
            // from the second unit on, the header may reach the ring end and continue at offset 0
            final int n = hdr - 2;
            final long to = at + EthSeg.INLINE_HDR_OFFSET;
            final long first = Math.min(n, ringMask + 1 - to);
            copyTemplate(h, 2, base, to, first);
            if (first < n)
            {
                copyTemplate(h, 2 + first, base, 0, n - first);
            }
        }
        return at + ((long)units << 4);
    }

    /**
     * One gather entry at {@code at}; returns the offset after it (not masked).
     *
     * @param base the ring's address, from this post's liveness check
     * @param at ring offset of the segment (masked here)
     * @param byteCount the entry's length
     * @param lkey the entry's lkey
     * @param addr the entry's address
     * @return the offset after the entry (not masked)
     */
    public long data(final long base, final long at, final int byteCount, final int lkey, final long addr)
    {
        DataSeg.put(base + (at & ringMask), byteCount, lkey, addr);
        return at + DataSeg.LENGTH;
    }

    /**
     * One inline segment at {@code at} holding {@code hLen} bytes of {@code h} from {@code hOffset}, then the
     * {@code pLen} payload bytes at address {@code payload}: header, bytes, zero padding to 16 bytes. The bytes
     * go by {@link RingStores#copyWide}: by 512-bit vectors where this JVM has them.
     *
     * @param base the ring's address, from this post's liveness check
     * @param at ring offset of the segment (masked here)
     * @param h the header template
     * @param hOffset offset of the first header byte in {@code h}
     * @param hLen header bytes to inline
     * @param payload address of the payload
     * @param pLen payload bytes
     * @return the offset after it (not masked)
     */
    public long inline(final long base, final long at, final MemorySegment h, final int hOffset, final int hLen,
        final long payload, final int pLen)
    {
        final int byteCount = hLen + pLen;
        final int units = InlineSeg.ds(byteCount);
        final int end = (InlineSeg.DATA_OFFSET + byteCount) & 15;
        if (end != 0)
        {
            RingStores.zeroPadding(base + ((at + ((long)(units - 1) << 4)) & ringMask), end);
        }
        final long seg = at & ringMask;
        InlineSeg.putHeader(base + seg, byteCount);
        final long data = seg + InlineSeg.DATA_OFFSET;  // seg is 16-aligned: data is before the ring end
        final long ringSize = ringMask + 1;
        if (hLen > 0)
        {
            final long first = Math.min(hLen, ringSize - data);
            copyTemplate(h, hOffset, base, data, first);
            if (first < hLen)
            {
                copyTemplate(h, hOffset + first, base, 0, hLen - first);
            }
        }
        if (pLen > 0)
        {
            // each copy is written out where it is used: as one shared helper C2 compiled it on its own and
            // called it (21 % of the samples of the inline row, perfasm)
            final long to = (data + hLen) & ringMask;
            final long first = Math.min(pLen, ringSize - to);
            RingStores.copyWide(payload, base + to, first);
            if (first < pLen)
            {
                RingStores.copyWide(payload + first, base, pLen - first);
            }
        }
        return at + ((long)units << 4);
    }

    /**
     * The Ethernet and inline segments of a template frame whose WQE lies before the ring end (every WQE but the
     * ones that wrap): the bytes {@link #eth} and {@link #inline} write, at addresses from {@code wqe} (the ctrl
     * segment's address) with no wrap arithmetic. JMH: the raw inline frame took about 8 ns more through the
     * two general methods than through these straight-line stores (docs/history.md, "WQE stores and post
     * bookkeeping").
     *
     * @param base the ring's address, from this post's liveness check
     * @param wqe address of the ctrl segment
     * @param csFlags checksum offload flags ({@code EthSeg.MLX5_ETH_WQE_*})
     * @param h the header template
     * @param hdr header bytes inlined in the Ethernet segment
     * @param hRest header bytes after those, inlined in the inline segment
     * @param payload address of the payload
     * @param pLen payload bytes
     */
    public void inlineFrame(final long base, final long wqe, final int csFlags, final MemorySegment h, final int hdr,
        final int hRest, final long payload, final int pLen)
    {
        final long eth = wqe + CtrlSeg.LENGTH;
        final int ethUnits = EthSeg.ds(hdr);
        final int ethEnd = (EthSeg.INLINE_HDR_START_OFFSET + hdr) & 15;
        if (hdr > 2 && ethEnd != 0)
        {
            RingStores.zeroPadding(eth + ((long)(ethUnits - 1) << 4), ethEnd);
        }
        final int start = hdr > 1 ? Short.toUnsignedInt(h.get(BE16_UNALIGNED, 0)) :
            hdr == 1 ? (h.get(JAVA_BYTE, 0) & 0xff) << 8 : 0;
        EthSeg.put(eth, csFlags, 0, EthSeg.inlineHdrWord(hdr, start));
        if (hdr > 2)
        {
            copyTemplate(h, 2, base, eth + EthSeg.INLINE_HDR_OFFSET - base, hdr - 2);
        }
        final long seg = eth + ((long)ethUnits << 4);
        final int byteCount = hRest + pLen;
        final int end = (InlineSeg.DATA_OFFSET + byteCount) & 15;
        if (end != 0)
        {
            RingStores.zeroPadding(seg + ((long)(InlineSeg.ds(byteCount) - 1) << 4), end);
        }
        InlineSeg.putHeader(seg, byteCount);
        final long data = seg + InlineSeg.DATA_OFFSET;
        if (hRest > 0)
        {
            copyTemplate(h, hdr, base, data - base, hRest);
        }
        if (pLen > 0)
        {
            RingStores.copyWide(payload, data + hRest, pLen);
        }
    }

    /**
     * Copies {@code bytes} bytes of the template from {@code from} to ring offset {@code to} (not past the ring end).
     * <p>
     * Through {@code MemorySegment.copy} every load of the template checks its bounds and its session (JMH:
     * about 5 ns of a 40 ns raw inline send, JMH with the header copied by raw loads instead). The session can be
     * checked once when it is confined to this thread: {@code isAccessibleBy} is true for this thread and false for
     * a thread that never runs (a shared, global or automatic session is accessible by every thread), and only the
     * owner can close a confined arena, which it cannot do while it is in this post. So an alive confined template of
     * this thread is read with raw loads; any other (shared, automatic, global, heap, another thread's: which then
     * throws, as before) goes through {@code MemorySegment.copy}.
     */
    private void copyTemplate(final MemorySegment h, final long from, final long base, final long to,
        final long bytes)
    {
        final Thread self = Thread.currentThread();
        if ((h == rawTemplate && self == rawReader || rawReadable(h, self)) &&
            h.scope().isAlive() && from >= 0 && bytes <= h.byteSize() - from)
        {
            RingStores.copyWide(h.address() + from, base + to, bytes);
        }
        else
        {
            MemorySegment.copy(h, from, ring, to, bytes);
        }
    }

    /** Whether {@code h} is native and confined to {@code self}; remembered for the next post if so. */
    private boolean rawReadable(final MemorySegment h, final Thread self)
    {
        if (h.isNative() && !h.isAccessibleBy(NO_THREAD) && h.isAccessibleBy(self))
        {
            rawTemplate = h;
            rawReader = self;
            return true;
        }
        return false;
    }
}
