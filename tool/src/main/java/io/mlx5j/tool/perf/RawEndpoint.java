package io.mlx5j.tool.perf;

import io.mlx5j.direct.Access;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CompletionQueue;
import io.mlx5j.direct.Context;
import io.mlx5j.direct.DirectCq;
import io.mlx5j.direct.DirectRecvQueue;
import io.mlx5j.direct.FlowRule;
import io.mlx5j.direct.MemoryRegion;
import io.mlx5j.direct.ProtectionDomain;
import io.mlx5j.direct.QpConfig;
import io.mlx5j.direct.QpType;
import io.mlx5j.direct.QueuePair;
import io.mlx5j.direct.RawSendQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One side of a raw perf test: a RAW_PACKET QP with a send CQ and a receive CQ of its own, its Java send queue,
 * receive queue and CQ pollers, the flow rule perftest installs for it, and one registered buffer:
 * <pre>
 *   [ the frame this side sends (built once, never changed) | rxDepth receive slots of slotSize bytes ]
 * </pre>
 * Every frame sent is the same bytes (as in perftest, which fills its buffer with copies of one packet), so one frame
 * serves every WQE and nothing is rewritten while the NIC may still read it.
 * <p>
 * The flow rule is perftest's (set_up_flow_rules in raw_ethernet_resources.c; a raw_bw client has none and posts no
 * receives, as perftest's): destination MAC = this side's MAC;
 * with IP addresses, on the server an IPv4 spec matching source = client and destination = server (the client's
 * IPv4 spec is empty: it matches any address); with ports, a UDP/TCP spec matching the peer's port as source and
 * this side's as destination; with -Y, the ethertype.
 * <p>
 * Thread model: after setup one thread drives the queues and pollers (in loopback that thread drives both sides).
 */
final class RawEndpoint implements AutoCloseable
{
    /** Latency tests keep this many send WQEs (perftest signals every cq-mod; we also retire by signalEvery). */
    static final int LAT_SEND_DEPTH = 64;

    final PerfOptions o;
    /** This QP plays the server (true) or the client (false). */
    final boolean server;
    final CompletionQueue sendCqObject;
    final CompletionQueue recvCqObject;
    final QueuePair qp;
    final Arena memory;
    final MemoryRegion mr;
    final MemorySegment buffer;
    final int lkey;
    /** Bytes posted per frame. */
    final int length;
    /** Address of the frame this side sends. */
    final long frame;
    final long slotsOffset;
    final int slotSize;
    final int slots;
    /** The frame the peer must send, for the receive checks (heap memory). */
    final MemorySegment expected;
    RawSendQueue sq;
    DirectRecvQueue rq;
    DirectCq sendCq;
    DirectCq recvCq;
    FlowRule rule;
    final Completion sc = new Completion();
    final Completion rc = new Completion();
    /** Receive completions so far. */
    long received;
    /** Frames whose first bytes carried {@link RawFrame#MAGIC} and were compared whole. */
    long wholeChecked;
    /** Send completions: the newest signaled wr_id + 1 (wr_ids are frame numbers). */
    long sendsRetired;
    /** raw_bw client with a BW peak: post time of every frame, completion time of every signaled one (else null). */
    long[] postedAt;
    long[] completedAt;
    /** Every this many sends one is signaled (perftest's cq-mod; at most half the ring in raw_lat). */
    int signalInterval;

    RawEndpoint(final Context context, final ProtectionDomain pd, final PerfOptions o, final boolean server)
    {
        this.o = o;
        this.server = server;
        this.length = RawFrame.wireLength(o);
        final int sendDepth = o.test().isLatency() ? LAT_SEND_DEPTH : Math.max(o.txDepth(), 16);
        this.slots = o.test().isLatency() || server ? o.rxDepth() : 1;     // receives(): a raw_bw client posts none
        this.slotSize = (int) align(Math.max(length, 64), 64);
        this.slotsOffset = align(length, 64);
        CompletionQueue scq = null;
        CompletionQueue rcq = null;
        QueuePair createdQp = null;
        Arena createdMemory = null;
        MemoryRegion createdMr = null;
        try
        {
            scq = context.createCq(sendDepth + 1);
            rcq = context.createCq(slots + 1);
            createdQp = pd.createQp(QpConfig.builder(QpType.RAW_PACKET, scq).recvCq(rcq).maxSendWr(sendDepth)
                .maxRecvWr(slots).maxSendSge(1).maxRecvSge(1).maxInlineData(o.inlineSize()).build());
            createdMemory = Arena.ofShared();
            createdMr = pd.register(createdMemory.allocate(slotsOffset + (long) slots * slotSize, 4096),
                Access.LOCAL_WRITE);
        }
        catch (final RuntimeException ex)
        {
            closeAll(null, createdQp, scq, rcq, createdMr, createdMemory);
            throw ex;
        }
        this.sendCqObject = scq;
        this.recvCqObject = rcq;
        this.qp = createdQp;
        this.memory = createdMemory;
        this.mr = createdMr;
        this.buffer = mr.memory();
        this.lkey = mr.lkey();
        this.frame = buffer.address();
        RawFrame.write(buffer, 0, o, server);
        this.expected = MemorySegment.ofArray(new byte[length]);
        RawFrame.write(expected, 0, o, !server);
    }

    /**
     * Activates the QP, builds the Java queues, posts every receive slot, then installs the flow rule: when this
     * returns, frames for this side land in posted buffers (a server may then announce that it is ready).
     */
    RawEndpoint start(final boolean sharedRegister)
    {
        qp.activate(o.ibPort());
        sq = RawSendQueue.of(qp, o.mode(), sharedRegister);
        signalInterval = Math.min(o.cqMod(), o.test().isLatency() ? LAT_SEND_DEPTH / 2 : o.txDepth());
        sq.signalEvery(signalInterval);
        rq = DirectRecvQueue.of(qp);
        sendCq = DirectCq.of(sendCqObject).attach(sq.queue());
        recvCq = DirectCq.of(recvCqObject).attach(rq);
        if (!receives())
        {
            return this;    // a raw_bw client receives nothing: perftest gives it no flow rule
        }
        for (int i = 0; i < slots; i++)
        {
            rq.post(i, buffer.address() + slotsOffset + (long) i * slotSize, lkey, slotSize);
        }
        rq.ring();
        FlowRule.Builder b = FlowRule.builder(qp, o.ibPort());
        final long ownMac = server ? o.raw().serverMac() : o.raw().clientMac();
        if (o.raw().ethertype() >= 0)
        {
            b = b.eth(ownMac, 0xffff_ffff_ffffL, 0, 0, o.raw().ethertype(), 0xffff, 0, 0);
        }
        else
        {
            b = b.ethDst(ownMac);
        }
        if (o.raw().hasIp())
        {
            b = server ? b.ipv4(o.raw().clientIp(), -1, o.raw().serverIp(), -1) : b.ipv4(0, 0, 0, 0);
        }
        if (o.raw().hasPorts())
        {
            final int own = server ? o.raw().serverPort() : o.raw().clientPort();
            final int peer = server ? o.raw().clientPort() : o.raw().serverPort();
            b = o.raw().tcp() ? b.tcp(own, 0xffff, peer, 0xffff) : b.udp(own, 0xffff, peer, 0xffff);
        }
        rule = b.create();
        return this;
    }

    /** Keep the post and completion times perftest's BW peak is computed from ({@link RawPeak}). */
    void recordTimes()
    {
        postedAt = new long[(int) o.iterations()];
        completedAt = new long[(int) o.iterations()];
    }

    /** Whether this side receives: both sides of raw_lat, the server of raw_bw (perftest's flow rules likewise). */
    boolean receives()
    {
        return o.test().isLatency() || server;
    }

    /** Posts the frame; false when the ring is full (nothing posted). */
    boolean send(final long wrId, final int flags)
    {
        if (postedAt != null)
        {
            postedAt[(int) wrId] = System.nanoTime();
        }
        return sq.send(wrId, frame, lkey, length, flags);
    }

    /** Polls the send CQ once; returns completions seen (errors throw). */
    int pollSend()
    {
        final int n = sendCq.poll(sc);
        if (n != 0)
        {
            if (!sc.isSuccess())
            {
                throw new IllegalStateException("send completion with error: " + sc);
            }
            sendsRetired = sc.wrId() + 1;
            if (completedAt != null)
            {
                completedAt[(int) sc.wrId()] = System.nanoTime();
            }
        }
        return n;
    }

    /**
     * Polls the receive CQ once; a frame is checked and its buffer posted again (rung at once). Returns 1 when a
     * frame arrived.
     */
    int pollRecv()
    {
        if (recvCq.poll(rc) == 0)
        {
            return 0;
        }
        if (!rc.isSuccess())
        {
            throw new IllegalStateException("receive completion with error after " + received + " frames: " + rc);
        }
        final long at = rc.frameAddress() - buffer.address();
        check(at, rc.byteLen());
        received++;
        rq.post(rc.wrId(), rc.frameAddress(), lkey, slotSize);
        rq.ring();
        return 1;
    }

    /**
     * The frame must be the one the peer sends under the same options: its length, and its header bytes as perftest
     * builds them (the source MAC only when this side knows the peer's); a frame from an mlx5j peer also its payload.
     */
    private void check(final long at, final int byteLen)
    {
        if (byteLen != length)
        {
            throw new IllegalStateException("frame " + received + " has " + byteLen + " bytes, expected " + length
                + " (-s " + o.size() + " less the 4-byte FCS)");
        }
        final boolean peerMacKnown = (server ? o.raw().clientMac() : o.raw().serverMac()) >= 0;
        final int hdr = RawFrame.headerLength(o);
        final long diff = peerMacKnown
            ? MemorySegment.mismatch(buffer, at, at + hdr, expected, 0, hdr)
            : mismatchWithout(at, 6, 12, hdr);
        if (diff >= 0)
        {
            throw new IllegalStateException(String.format("frame %d differs from the expected header at byte %d: "
                + "0x%02x, expected 0x%02x", received, diff, buffer.get(ValueLayout.JAVA_BYTE, at + diff) & 0xff,
                expected.get(ValueLayout.JAVA_BYTE, diff) & 0xff));
        }
        if (RawFrame.isMlx5j(buffer, at, o))
        {
            final long p = MemorySegment.mismatch(buffer, at + hdr, at + length, expected, hdr, length);
            if (p >= 0)
            {
                throw new IllegalStateException("frame " + received + " from an mlx5j peer: payload byte " + (hdr + p)
                    + " differs from the pattern");
            }
            wholeChecked++;
        }
    }

    /** mismatch of [0, hdr) skipping [from, to). */
    private long mismatchWithout(final long at, final int from, final int to, final int hdr)
    {
        final long a = MemorySegment.mismatch(buffer, at, at + from, expected, 0, from);
        if (a >= 0)
        {
            return a;
        }
        final long b = MemorySegment.mismatch(buffer, at + to, at + hdr, expected, to, hdr);
        return b >= 0 ? to + b : -1;
    }

    /** What the receive checks covered, for the report. */
    String checkSummary()
    {
        final boolean peerMacKnown = (server ? o.raw().clientMac() : o.raw().serverMac()) >= 0;
        return received + " frames of " + length + " bytes, headers as perftest builds them"
            + (peerMacKnown ? "" : " (source MAC not known here, not compared)") + "; "
            + (wholeChecked == received ? "payload pattern ok (an mlx5j peer)"
            : wholeChecked == 0 ? "payload not compared (perftest's random bytes)"
            : wholeChecked + " with the mlx5j payload pattern");
    }

    /** Address of the QP's BlueFlame register: two QPs of one context may be given the same one. */
    long bfRegister()
    {
        return qp.rings().bfReg().address();
    }

    @Override
    public void close()
    {
        closeAll(rule, qp, sendCqObject, recvCqObject, mr, memory);
    }

    private static void closeAll(final FlowRule rule, final QueuePair qp, final CompletionQueue scq,
        final CompletionQueue rcq, final MemoryRegion mr, final Arena memory)
    {
        if (rule != null)
        {
            rule.close();
        }
        if (qp != null)
        {
            qp.close();
        }
        if (scq != null)
        {
            scq.close();
        }
        if (rcq != null)
        {
            rcq.close();
        }
        if (mr != null)
        {
            mr.close();
        }
        if (memory != null)
        {
            memory.close();
        }
    }

    private static long align(final long v, final long a)
    {
        return (v + a - 1) & -a;
    }
}
