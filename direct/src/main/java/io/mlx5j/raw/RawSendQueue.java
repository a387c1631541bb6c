// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import io.mlx5j.bindings.IbvDeviceAttr;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.internal.QueueBridge;
import io.mlx5j.direct.internal.EthFrameEncoder;
import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.ScatterList;
import io.mlx5j.direct.internal.SendRingCore;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.memory.AddressSpace;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.EthSeg;
import io.mlx5j.wqe.InlineSeg;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.UdpHeaderTemplate;
import io.mlx5j.wqe.WqeWriter;

import java.lang.foreign.MemorySegment;

/**
 * The send queue of a {@link QpType#RAW_PACKET} QP, posted from Java: every WQE is a ctrl segment, an Ethernet
 * segment with the first bytes of the frame inline ({@link EthSeg}), and the rest of the frame inline or by gather
 * entries, the bytes libmlx5's {@code ibv_post_send} writes for the same frame (rdma-core v44 providers/mlx5/qp.c,
 * the IBV_QPT_RAW_PACKET branch of _mlx5_post_send with copy_eth_inline_headers; the parity test in module
 * {@code tests} compares them byte for byte in both minimum-inline modes).
 *
 * <h2>A frame is a gather list</h2>
 * A post names the frame's bytes as pieces, in wire order, exactly as an {@code ibv_send_wr}'s sg_list does:
 * <ul>
 * <li>the first {@link #minInline()} bytes (0 or 18, the device's minimum inline mode, read from libmlx5 itself:
 *     {@link EthMinInline}) are copied into the Ethernet segment, gathered across pieces when the first is
 *     shorter;</li>
 * <li>the rest follows as one inline segment ({@link SendFlags#INLINE}: up to the QP's max inline data) or as one
 *     data segment per non-empty remaining piece (the first one offset past the inlined bytes).</li>
 * </ul>
 * {@link #send(long, long, int, int, int)} posts a frame that is one piece of registered memory; {@link
 * #send(long, UdpHeaderTemplate, int, long, int, int, int, int)} posts a {@link UdpHeaderTemplate} followed by a
 * payload (two pieces); {@link #begin} ... {@link #sge} ... {@link #post()} stages any list. Flags: {@link
 * SendFlags#SIGNALED}, {@link SendFlags#FENCE}, {@link SendFlags#SOLICITED}, {@link SendFlags#INLINE}, {@link
 * SendFlags#IP_CSUM} (IPv4 header and TCP/UDP checksums by the NIC: cs_flags L3|L4, as libmlx5 maps
 * IBV_SEND_IP_CSUM; refused on a device without IBV_DEVICE_RAW_IP_CSUM, where libmlx5 returns EINVAL) and {@link
 * SendFlags#RING}.
 *
 * <h2>Beyond libmlx5</h2>
 * <ul>
 * <li>{@link #inlineHeaders(int)} puts more of the frame than the minimum into the Ethernet segment (the L3/L4
 *     headers too), continuing into the following 16-byte units as set_tso_eth_seg lays out a TSO header;
 *     libmlx5's ibv_post_send cannot write that for a plain send.</li>
 * <li>VLAN insertion ({@link #vlan(int)}): with no inline header the NIC inserts the tag (insert word of the
 *     Ethernet segment); with inline headers the tag is written into the inline copy (as the Linux mlx5e driver
 *     does), so the inline bytes are those of the tagged frame and the gather entries continue after the
 *     untagged frame's inlined bytes. libmlx5 has no VLAN insertion; the parity test compares with libmlx5
 *     posting the tagged frame.</li>
 * </ul>
 * Posting, ringing, signaling and completions are those of the underlying {@link SendQueue} ({@link #queue()}),
 * whose ring core ({@link SendRingCore}: slots, ctrl segment, doorbell) this queue composes to commit its WQEs.
 * Attach that SendQueue to the {@link CqPoller} of the QP's send CQ; {@link #ring()} rings once for everything
 * posted (BlueFlame for a single WQE in AUTO mode, as libmlx5). Every post returns false, writing nothing, when the
 * ring is full.
 * <p>
 * <b>Threads:</b> as {@link SendQueue}: one thread, together with the CqPoller that retires it. No post
 * allocates.
 */
public final class RawSendQueue
{
    /** {@link #vlan(int)} / one-call argument: no VLAN tag. */
    public static final int NO_VLAN = -1;
    private static final long NULL_PAGE = 4096;
    private static final int FLAGS = SendFlags.SIGNALED | SendFlags.FENCE | SendFlags.SOLICITED | SendFlags.INLINE |
        SendFlags.IP_CSUM | SendFlags.RING;

    private final QueuePair qp;
    private final SendQueue queue;
    /** The ring core of {@link #queue}, composed: slots, ctrl segment rules, doorbell, thread group. */
    private final SendRingCore core;
    private final MemorySegment ring;
    private final long ringSize;
    private final SendRing sq;
    private final WqeWriter writer;
    private final EthFrameEncoder frame;
    private final int minInline;
    private final int maxInline;
    private final boolean csumOffload;
    private final ScatterList sgl;
    /** Gather area for header bytes split across pieces and for inline payloads of three or more pieces. */
    private final MemorySegment scratch;
    private int inlineHeader;

    private boolean staged;
    private long stWrId;
    private int stFlags;
    private int stVlan;

    private RawSendQueue(final QueuePair qp, final DoorbellMode mode, final boolean sharedRegister)
    {
        if (qp.type() != QpType.RAW_PACKET)
        {
            throw new IllegalArgumentException("RawSendQueue needs a RAW_PACKET QP: " + qp);
        }
        this.qp = qp;
        this.queue = SendQueue.of(qp, mode, sharedRegister);
        this.core = QueueBridge.core(queue);
        this.ring = core.memory();
        this.ringSize = ring.byteSize();
        this.sq = core.slots();
        this.writer = core.writer();
        this.frame = new EthFrameEncoder(ring);
        this.minInline = EthMinInline.of(qp);
        this.inlineHeader = minInline;
        this.maxInline = qp.capabilities().maxInlineData();
        // libmlx5 accepts IBV_SEND_IP_CSUM on a raw QP of an Ethernet port when the device reports
        // IBV_DEVICE_RAW_IP_CSUM (verbs.c mlx5_modify_qp: MLX5_CSUM_SUPPORT_RAW_OVER_ETH)
        this.csumOffload = (qp.pd().context().queryDevice().deviceCapFlags() &
            IbvDeviceAttr.IBV_DEVICE_RAW_IP_CSUM) != 0;
        this.sgl = new ScatterList(Math.max(1, qp.capabilities().maxSendSge()));
        this.scratch = MemorySegment.ofArray(new long[(Math.max(maxInline, 256) + 64) / 8]);
    }

    /**
     * A raw send queue over {@code qp}'s ring, its BlueFlame register locked or not as libmlx5 set it up (see
     * {@link SendQueue#of(QueuePair, DoorbellMode)}). One per QP; reads the device's minimum inline mode and
     * checksum capability once, here.
     *
     * @param qp   a RAW_PACKET QP
     * @param mode how {@link #ring()} writes the doorbell
     * @return the queue, confined to the thread that posts and polls it
     * @throws IllegalArgumentException if {@code qp} is not RAW_PACKET
     */
    public static RawSendQueue of(final QueuePair qp, final DoorbellMode mode)
    {
        return new RawSendQueue(qp, mode, false);
    }

    /**
     * A raw send queue with an explicit register choice.
     *
     * @param qp             a RAW_PACKET QP
     * @param mode           how {@link #ring()} writes the doorbell
     * @param sharedRegister see {@link SendQueue#of(QueuePair, DoorbellMode, boolean)}
     * @return the queue, confined to the thread that posts and polls it
     * @throws IllegalArgumentException if {@code qp} is not RAW_PACKET
     */
    public static RawSendQueue of(final QueuePair qp, final DoorbellMode mode, final boolean sharedRegister)
    {
        return new RawSendQueue(qp, mode, sharedRegister);
    }

    /**
     * The queue whose slots, doorbell and completions this raw queue uses: attach it to the send CQ's CqPoller.
     *
     * @return the underlying queue; same thread as this one
     */
    public SendQueue queue()
    {
        return queue;
    }

    /**
     * Frame bytes every WQE carries in its Ethernet segment at least: libmlx5's eth_min_inline_size, 0 or 18.
     *
     * @return 0 or 18 bytes
     */
    public int minInline()
    {
        return minInline;
    }

    /**
     * Frame bytes written into the Ethernet segment ({@link #minInline()} unless {@link #inlineHeaders} changed it).
     *
     * @return bytes, {@link #minInline()}..256
     */
    public int inlineHeaderBytes()
    {
        return inlineHeader;
    }

    /**
     * Whether the device computes checksums for {@link SendFlags#IP_CSUM}.
     *
     * @return true if the device reports IBV_DEVICE_RAW_IP_CSUM; without it IP_CSUM is refused
     */
    public boolean checksumOffload()
    {
        return csumOffload;
    }

    /**
     * Inline {@code bytes} of every frame in the Ethernet segment instead of the minimum, e.g. 42 for a whole
     * Ethernet/IPv4/UDP header. At least {@link #minInline()}; at most 256 bytes.
     *
     * @param bytes {@link #minInline()}..256
     * @return this queue
     * @throws IllegalArgumentException if {@code bytes} is out of range
     */
    public RawSendQueue inlineHeaders(final int bytes)
    {
        if (bytes < minInline || bytes > 256)
        {
            throw new IllegalArgumentException("inline header of " + bytes + " bytes: the device needs at least " +
                minInline + ", mlx5j writes at most 256");
        }
        this.inlineHeader = bytes;
        return this;
    }

    /**
     * Selective signaling of the underlying queue ({@link SendQueue#signalEvery(int)}).
     *
     * @param n every n-th WQE is signaled; 0 turns it off
     * @return this queue
     * @throws IllegalArgumentException if {@code n} is negative
     */
    public RawSendQueue signalEvery(final int n)
    {
        queue.signalEvery(n);
        return this;
    }

    // ------------------------------------------------------------------------------------------------ one-call posts

    /**
     * One frame of {@code len} bytes at {@code addr} (registered under {@code lkey} unless INLINE).
     *
     * @param wrId  returned in the completion
     * @param addr  the frame's first byte (destination MAC)
     * @param lkey  the memory region's lkey (ignored with INLINE)
     * @param len   frame bytes, at least {@link #inlineHeaderBytes()}
     * @param flags {@link SendFlags} bits
     * @return true if posted; false if the ring has no room (nothing written, the frame stays staged)
     * @throws IllegalArgumentException naming the problem: unknown flags, IP_CSUM without device support, too many
     *                                  pieces, a frame shorter than the inline header, an inline frame over the QP's
     *                                  limit, a piece at the null page
     */
    public boolean send(final long wrId, final long addr, final int lkey, final int len, final int flags)
    {
        return begin(wrId, flags).sge(addr, lkey, len).post();
    }

    /**
     * A frame made of a header template and a payload: the gather list {@code [template (42 bytes, registered under
     * headerLkey unless INLINE), payload]}. The template bytes the WQE carries are read with one liveness check when
     * the template's memory belongs to a confined arena of the posting thread, and through its segment's checked
     * accesses otherwise (shared, automatic or global arenas, the heap); a closed template, or one confined to
     * another thread, makes the send throw and claim nothing.
     *
     * @param wrId        returned in the completion
     * @param header      the frame's Ethernet/IPv4/UDP header
     * @param headerLkey  lkey of the template's memory (ignored with INLINE)
     * @param payload     address of the payload, following the header on the wire
     * @param payloadLkey lkey of the payload's memory (ignored with INLINE)
     * @param payloadLen  payload bytes
     * @param vlanTci     {@link #NO_VLAN} or the 802.1Q TCI to insert
     * @param flags       {@link SendFlags} bits
     * @return true if posted; false if the ring has no room (nothing written, the frame stays staged)
     * @throws IllegalStateException if the template's memory is closed
     * @throws WrongThreadException if the template's memory is confined to another thread
     * @throws IllegalArgumentException naming the problem: unknown flags, IP_CSUM without device support, too many
     *                                  pieces, a frame shorter than the inline header, an inline frame over the QP's
     *                                  limit, a piece at the null page
     */
    public boolean send(final long wrId, final UdpHeaderTemplate header, final int headerLkey, final long payload,
        final int payloadLkey, final int payloadLen, final int vlanTci, final int flags)
    {
        final MemorySegment h = header.segment();
        return vlanTci == NO_VLAN && postTemplate(wrId, h, headerLkey, payload, payloadLkey, payloadLen, flags) ||
            begin(wrId, flags).vlan(vlanTci).sge(h.address(), headerLkey, (int)h.byteSize())
                .sge(payload, payloadLkey, payloadLen).post();
    }

    /**
     * The template send's fast path (JMH: the staging path's gather-list bookkeeping made this the slowest
     * post): the same WQE {@link #post()} writes for the two-piece list {@code [h, payload]} without a VLAN tag,
     * when the inline header lies within the template (the usual case: 0, 18 or all 42 bytes). It declines,
     * writing and claiming nothing, whenever the staging path has something to say (an error to throw, a full ring
     * to report with the frame staged), and the caller then stages the frame.
     *
     * @return true if the WQE was posted
     */
    private boolean postTemplate(final long wrId, final MemorySegment h, final int hLkey, final long payload,
        final int pLkey, final int pLen, final int flags)
    {
        if (Ownership.DEBUG)
        {
            core.ownership().check(queue);
        }
        final int hdr = inlineHeader;
        final int hLen = (int)h.byteSize();
        final int hRest = hLen - hdr;    // template bytes after the inline header
        final boolean inline = (flags & SendFlags.INLINE) != 0;
        if ((flags & ~FLAGS) != 0 || (flags & SendFlags.IP_CSUM) != 0 && !csumOffload || hRest < 0 || pLen < 0 ||
            hLen + pLen == 0 ||
            sgl.max < 2 || Long.compareUnsigned(h.address(), NULL_PAGE) < 0 ||
            pLen != 0 && Long.compareUnsigned(payload, NULL_PAGE) < 0)
        {
            return false;
        }
        final int rest = hRest + pLen;
        int ds = 1 + EthSeg.ds(hdr);
        if (inline)
        {
            if (rest > maxInline)
            {
                return false;
            }
            ds += rest > 0 ? InlineSeg.ds(rest) : 0;
        }
        else
        {
            ds += (hRest > 0 ? 1 : 0) + (pLen > 0 ? 1 : 0);
        }
        if (ds > writer.maxDs())
        {
            return false;
        }
        final long base = core.liveRing();     // this post's one liveness check (SendQueue's close rule)
        final long ctrl = sq.claim(SendRing.numWqebb(ds));
        if (ctrl == SendRing.NO_SPACE)
        {
            return false;
        }
        staged = false;     // a one-call post replaces whatever was staged, as begin() does
        final EthFrameEncoder e = frame;
        final int csFlags = (flags & SendFlags.IP_CSUM) != 0 ?
            EthSeg.MLX5_ETH_WQE_L3_CSUM | EthSeg.MLX5_ETH_WQE_L4_CSUM : 0;
        if (inline)
        {
            // both pieces in one inline segment (an empty piece adds no bytes: the same as post()'s choice)
            if (rest > 0 && ctrl + ((long)SendRing.numWqebb(ds) << SendRing.MLX5_SEND_WQE_SHIFT) <= ringSize)
            {
                e.inlineFrame(base, base + ctrl, csFlags, h, hdr, hRest, payload, pLen);
            }
            else
            {
                inlineWrapped(base, ctrl, csFlags, h, hdr, hRest, payload, pLen);
            }
        }
        else
        {
            long at = e.eth(base, ctrl, csFlags, h, hdr);
            if (hRest > 0)
            {
                at = e.data(base, at, hRest, hLkey, h.address() + hdr);
            }
            if (pLen > 0)
            {
                e.data(base, at, pLen, pLkey, payload);
            }
        }
        core.commit(base, ctrl, ds, Mlx5Opcode.MLX5_OPCODE_SEND, 0, wrId, flags);
        return true;
    }

    /**
     * An inline frame whose WQE runs past the ring end (or carries no bytes after the Ethernet segment), through
     * the encoder's wrapping methods. A method of its own so that C2 keeps it out of {@link #postTemplate}'s
     * compiled body, which a post reaches about once per pass over the ring (JMH: with this code in the body
     * the raw inline frame took about 9 ns more; docs/history.md, "WQE stores and post bookkeeping").
     */
    private void inlineWrapped(final long base, final long ctrl, final int csFlags, final MemorySegment h,
        final int hdr, final int hRest, final long payload, final int pLen)
    {
        final long at = frame.eth(base, ctrl, csFlags, h, hdr);
        if (hRest + pLen > 0)
        {
            frame.inline(base, at, h, hdr, hRest, payload, pLen);
        }
    }

    // ------------------------------------------------------------------------------------------------ staging form

    /**
     * Start staging a frame; replaces whatever was staged and not posted.
     *
     * @param wrId  returned in the completion
     * @param flags {@link SendFlags} bits
     * @return this queue
     * @throws IllegalArgumentException if {@code flags} has a bit a raw send does not take
     */
    public RawSendQueue begin(final long wrId, final int flags)
    {
        if ((flags & ~FLAGS) != 0)
        {
            throw new IllegalArgumentException("unknown raw send flags 0x" + Integer.toHexString(flags & ~FLAGS));
        }
        sgl.clear();
        staged = true;
        stWrId = wrId;
        stFlags = flags;
        stVlan = NO_VLAN;
        return this;
    }

    /**
     * Insert an 802.1Q tag with this TCI after the frame's MAC addresses ({@link #NO_VLAN}: none).
     *
     * @param tci the 16-bit TCI (PCP, DEI, VLAN ID), or {@link #NO_VLAN}
     * @return this queue
     * @throws IllegalArgumentException if {@code tci} does not fit 16 bits
     */
    public RawSendQueue vlan(final int tci)
    {
        if (tci != NO_VLAN && (tci & ~0xffff) != 0)
        {
            throw new IllegalArgumentException("VLAN TCI must be 16 bits: 0x" + Integer.toHexString(tci));
        }
        stVlan = tci;
        return this;
    }

    /**
     * The next piece of the frame.
     *
     * @param addr the piece's first byte
     * @param lkey its memory region's lkey (ignored with INLINE)
     * @param len  bytes, 0 or more
     * @return this queue
     * @throws IllegalArgumentException if {@code len} is negative or the QP takes no more pieces per WQE
     */
    public RawSendQueue sge(final long addr, final int lkey, final int len)
    {
        if (len < 0)
        {
            throw new IllegalArgumentException("negative piece length " + len);
        }
        sgl.add(addr, lkey, len, qp, " takes at most ", " SGEs per WQE");
        return this;
    }

    /**
     * Write the staged frame into the ring (not rung yet, unless {@link SendFlags#RING}).
     *
     * @return false if the ring has no room: nothing was written and the frame stays staged
     * @throws IllegalStateException if nothing is staged ({@link #begin} not called)
     * @throws IllegalArgumentException naming the problem: IP_CSUM without device support, too many
     *                                  pieces, a frame shorter than the inline header, an inline frame over the QP's
     *                                  limit, a piece at the null page
     */
    public boolean post()
    {
        if (Ownership.DEBUG)
        {
            core.ownership().check(queue);
        }
        if (!staged)
        {
            throw new IllegalStateException("post() without begin(): nothing staged on " + this);
        }
        staged = false;
        final int flags = stFlags;
        final int vlan = stVlan;
        final boolean inline = (flags & SendFlags.INLINE) != 0;
        if ((flags & SendFlags.IP_CSUM) != 0 && !csumOffload)
        {
            throw new IllegalArgumentException("IP_CSUM: " + qp + "'s device does not report IBV_DEVICE_RAW_IP_CSUM");
        }
        final int n = sgl.count;
        long total = 0;
        for (int i = 0; i < n; i++)
        {
            total += sgl.len[i];
        }
        final int hdr = inlineHeader;
        final boolean softVlan = vlan != NO_VLAN && hdr > 0;
        if (softVlan && hdr < EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE)
        {
            throw new IllegalArgumentException("a VLAN tag written into the inline header needs at least " +
                EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE + " inline bytes: " + hdr);
        }
        // frame bytes the Ethernet segment consumes from the gather list (a software tag adds 4 of its own)
        final int consumed = softVlan ? hdr - EthSeg.VLAN_HLEN : hdr;
        if (n == 0 || total == 0 || total < consumed)
        {
            throw new IllegalArgumentException("a frame of " + total + " bytes in " + n + " pieces is shorter than " +
                "the " + consumed + " bytes the Ethernet segment inlines (" + this + ")");
        }
        // where the gather list continues after the inlined bytes: piece `first`, byte `offset`
        int first = 0;
        int offset = consumed;
        while (first < n && offset >= sgl.len[first])
        {
            offset -= sgl.len[first];
            first++;
        }
        final long rest = total - consumed;
        int ds = 1 + EthSeg.ds(hdr);
        if (inline)
        {
            if (rest > maxInline)
            {
                throw new IllegalArgumentException("inline frame of " + rest + " bytes after the inline header " +
                    "exceeds " + qp + "'s max inline data " + maxInline);
            }
            if (rest > 0)
            {
                ds += InlineSeg.ds((int)rest);
            }
        }
        else
        {
            for (int i = first; i < n; i++)
            {
                if (sgl.len[i] - (i == first ? offset : 0) != 0)
                {
                    ds++;
                }
            }
        }
        checkReadable(inline ? n : consumed == 0 ? 0 : Math.min(first + 1, n));
        if (ds > writer.maxDs())
        {
            throw new IllegalArgumentException("WQE of " + ds + " 16-byte units exceeds the limit of " +
                writer.maxDs());
        }
        final long ctrl = sq.claim(SendRing.numWqebb(ds));
        if (ctrl == SendRing.NO_SPACE)
        {
            staged = true;
            return false;
        }
        final WqeWriter w = writer.wrap(ring, ctrl);
        final int cs = (flags & SendFlags.IP_CSUM) != 0 ? EthSeg.MLX5_ETH_WQE_L3_CSUM | EthSeg.MLX5_ETH_WQE_L4_CSUM : 0;
        final MemorySegment hsrc;
        final long hoff;
        if (sgl.len[0] >= consumed)
        {
            hsrc = AddressSpace.ALL;
            hoff = sgl.addr[0];
        }
        else
        {
            gather(0, 0, consumed);
            hsrc = scratch;
            hoff = 0;
        }
        if (vlan != NO_VLAN)
        {
            w.ethVlan(cs, 0, hsrc, hoff, hdr, vlan);
        }
        else
        {
            w.eth(cs, 0, hsrc, hoff, hdr);
        }
        if (inline)
        {
            if (rest > 0)
            {
                writeInline(w, first, offset, (int)rest);
            }
        }
        else
        {
            for (int i = first; i < n; i++)
            {
                final int skip = i == first ? offset : 0;
                if (sgl.len[i] - skip != 0)
                {
                    w.data(sgl.len[i] - skip, sgl.lkey[i], sgl.addr[i] + skip);
                }
            }
        }
        core.commit(core.liveRing(), ctrl, w.ds(), Mlx5Opcode.MLX5_OPCODE_SEND, 0, stWrId, flags);
        return true;
    }

    /**
     * Pieces [0, to) are read by the CPU during the post (inline header bytes; with INLINE every piece): refuse the
     * null page, so that the common mistake (an unset address) is an exception rather than a crash.
     */
    private void checkReadable(final int to)
    {
        for (int i = 0; i < to; i++)
        {
            if (sgl.len[i] != 0 && Long.compareUnsigned(sgl.addr[i], NULL_PAGE) < 0)
            {
                throw new IllegalArgumentException("frame piece address 0x" + Long.toHexString(sgl.addr[i]) +
                    " is in the null page");
            }
        }
    }

    /**
     * The inline segment: the rest of the frame, from piece {@code first} byte {@code offset} to the end of the list,
     * copied straight from one or two non-empty pieces, through the scratch area from more.
     */
    private void writeInline(final WqeWriter w, final int first, final int offset, final int bytes)
    {
        int a = -1;
        int b = -1;
        int pieces = 0;
        for (int i = first; i < sgl.count; i++)
        {
            if (sgl.len[i] - (i == first ? offset : 0) > 0)
            {
                if (pieces == 0)
                {
                    a = i;
                }
                else if (pieces == 1)
                {
                    b = i;
                }
                pieces++;
            }
        }
        final int skipA = a == first ? offset : 0;
        if (pieces == 1)
        {
            w.inline(AddressSpace.ALL, sgl.addr[a] + skipA, bytes);
        }
        else if (pieces == 2)
        {
            final int lenA = sgl.len[a] - skipA;
            w.inline(AddressSpace.ALL, sgl.addr[a] + skipA, lenA, AddressSpace.ALL, sgl.addr[b], bytes - lenA);
        }
        else
        {
            gather(first, offset, bytes);
            w.inline(scratch, 0, bytes);
        }
    }

    /** Copy {@code bytes} of the gather list, from piece {@code first} byte {@code offset}, to the scratch area. */
    private void gather(final int first, final int offset, final int bytes)
    {
        int at = 0;
        int skip = offset;
        for (int i = first; i < sgl.count && at < bytes; i++)
        {
            final int take = Math.min(sgl.len[i] - skip, bytes - at);
            if (take > 0)
            {
                MemorySegment.copy(AddressSpace.ALL, sgl.addr[i] + skip, scratch, at, take);
                at += take;
            }
            skip = 0;
        }
    }

    // ------------------------------------------------------------------------------------------------ doorbell

    /**
     * Ring once for everything posted since the last ring ({@link SendQueue#ring()}).
     *
     * @return the number of WQEs rung (0: nothing was pending, nothing was written)
     */
    public int ring()
    {
        return queue.ring();
    }

    /**
     * Room in the ring ({@link SendQueue#freeWqebb()}).
     *
     * @return free 64-byte WQE basic blocks
     */
    public int freeWqebb()
    {
        return queue.freeWqebb();
    }

    /**
     * Posted work not yet retired by the CqPoller ({@link SendQueue#outstanding()}).
     *
     * @return WQEBBs whose completions have not been polled
     */
    public int outstanding()
    {
        return queue.outstanding();
    }

    /**
     * Work posted but not rung yet.
     *
     * @return WQEs written since the last {@link #ring()}
     */
    public int pending()
    {
        return core.pending();
    }

    /**
     * The free-running producer counter ({@link SendQueue#producerCounter()}).
     *
     * @return WQEBBs posted so far; its low 16 bits are in the doorbell record after a ring
     */
    public int producerCounter()
    {
        return queue.producerCounter();
    }

    /**
     * The QP's inline limit, for {@link SendFlags#INLINE} frames.
     *
     * @return bytes of inline data a WQE may carry (the QP's max_inline_data)
     */
    public int maxInlineData()
    {
        return maxInline;
    }

    /**
     * The QP this queue posts to.
     *
     * @return the RAW_PACKET QP
     */
    public QueuePair queuePair()
    {
        return qp;
    }

    @Override
    public String toString()
    {
        return "RawSendQueue(qpn 0x" + Integer.toHexString(queue.qpn()) + ", inline header " + inlineHeader + ")";
    }
}
