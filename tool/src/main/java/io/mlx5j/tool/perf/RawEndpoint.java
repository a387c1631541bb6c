// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.verbs.Access;
import io.mlx5j.direct.Completion;
import io.mlx5j.verbs.Context;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpType;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.direct.SendFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The raw Ethernet part of an {@link Endpoint} (perftest's raw_ethernet_* tests): a RAW_PACKET QP whose send and
 * receive queues have a CQ each, the Java raw send queue, the flow rule perftest installs for it, and the buffer:
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
 */
final class RawEndpoint extends Endpoint
{
    final PerfOptions o;
    /** This QP plays the server (true) or the client (false). */
    final boolean server;
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
    CqPoller sendCq;
    CqPoller recvCq;
    FlowRule rule;
    final Completion sc = new Completion();
    final Completion rc = new Completion();
    /** Frames whose first bytes carried {@link RawFrame#MAGIC} and were compared whole. */
    long wholeChecked;
    /** Frames posted so far, and whether the newest was signaled (what {@link #drain} must wait for). */
    long posted;
    boolean lastSignaled;
    /** Every this many sends one is signaled ({@link PerfOptions#signalInterval()}). */
    int signalInterval;

    RawEndpoint(final Context context, final ProtectionDomain pd, final PerfOptions o, final boolean server)
    {
        super(context, pd, QpType.RAW_PACKET, true, o.sendDepth(), slots(o, server), o.inlineSize(),
            slotsOffset(o) + (long) slots(o, server) * slotSize(o), Access.LOCAL_WRITE);
        this.o = o;
        this.server = server;
        this.length = RawFrame.wireLength(o);
        this.slots = slots(o, server);
        this.slotSize = slotSize(o);
        this.slotsOffset = slotsOffset(o);
        this.frame = buffer.address();
        RawFrame.write(buffer, 0, o, server);
        this.expected = MemorySegment.ofArray(new byte[length]);
        RawFrame.write(expected, 0, o, !server);
    }

    /** Receive slots: rxDepth, but one for a raw_bw client, which posts none ({@link #receives()}). */
    private static int slots(final PerfOptions o, final boolean server)
    {
        return o.test().isLatency() || server ? o.rxDepth() : 1;
    }

    private static int slotSize(final PerfOptions o)
    {
        return (int) RcEndpoint.align(Math.max(RawFrame.wireLength(o), 64), 64);
    }

    /** The frame sent comes first, the slots after it. */
    private static long slotsOffset(final PerfOptions o)
    {
        return RcEndpoint.align(RawFrame.wireLength(o), 64);
    }

    /**
     * Activates the QP, builds the Java queues, posts every receive slot, then installs the flow rule: when this
     * returns, frames for this side land in posted buffers (a server may then announce that it is ready).
     */
    RawEndpoint start(final boolean sharedRegister)
    {
        qp.activate(o.ibPort());
        sq = RawSendQueue.of(qp, o.mode(), sharedRegister);
        rq = RecvQueue.of(qp);
        sendCq = CqPoller.of(sendCqObject).attach(sq.queue());
        recvCq = CqPoller.of(recvCqObject).attach(rq);
        begin(o);
        if (!receives())
        {
            return this;    // a raw_bw client receives nothing: perftest gives it no flow rule
        }
        for (int i = 0; i < slots; i++)
        {
            rq.post(i, buffer.address() + slotsOffset + (long) i * slotSize, lkey, slotSize);
        }
        rq.ring();
        final RawOptions raw = o.raw();
        FlowRule.Builder b = FlowRule.builder(qp, o.ibPort());
        final long ownMac = server ? raw.serverMac() : raw.clientMac();
        if (raw.ethertype() >= 0)
        {
            b = b.eth(ownMac, 0xffff_ffff_ffffL, 0, 0, raw.ethertype(), 0xffff, 0, 0);
        }
        else
        {
            b = b.ethDst(ownMac);
        }
        if (raw.hasIp())
        {
            b = server ? b.ipv4(raw.clientIp(), -1, raw.serverIp(), -1) : b.ipv4(0, 0, 0, 0);
        }
        if (raw.hasPorts())
        {
            final int own = server ? raw.serverPort() : raw.clientPort();
            final int peer = server ? raw.clientPort() : raw.serverPort();
            b = raw.tcp() ? b.tcp(own, 0xffff, peer, 0xffff) : b.udp(own, 0xffff, peer, 0xffff);
        }
        rule = b.create();
        return this;
    }

    /** Every frame is the same: only the signal interval is the run's. */
    @Override
    void begin(final PerfOptions run)
    {
        signalInterval = run.signalInterval();
        sq.signalEvery(signalInterval);
    }

    /** Posts the frame; false when the ring is full (nothing posted). */
    @Override
    boolean post(final long wrId, final int flags)
    {
        if (!sq.send(wrId, frame, lkey, length, flags))
        {
            return false;
        }
        posted++;
        lastSignaled = (flags & SendFlags.SIGNALED) != 0;
        return true;
    }

    /** Polls the send CQ once; returns completions seen (errors throw). */
    @Override
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
        }
        return n;
    }

    /**
     * Polls the receive CQ once; a frame is checked and its buffer posted again (rung at once). Returns 1 when a
     * frame arrived.
     */
    @Override
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

    /** The send CQ is the send queue's own: polled once between the iterations of a ping-pong. */
    @Override
    void retireSends()
    {
        pollSend();
    }

    /** Whether this side receives: both sides of raw_lat, the server of raw_bw (perftest's flow rules likewise). */
    @Override
    boolean receives()
    {
        return o.test().isLatency() || server;
    }

    @Override
    String messageName()
    {
        return "frame";
    }

    @Override
    String stallHint()
    {
        return "the peer is not running, or its frames do not match this side's flow rule: check -B/-E/-J/-j/-K/-k "
            + "on both sides";
    }

    /**
     * Waits until every frame posted so far has left the ring (its send completion polled), so that none is lost at
     * teardown: the newest frame, signaled, or else one more signaled frame behind the unsignaled tail (the ring
     * completes in order). {@code peer}: the loopback peer, whose receives this thread must keep posted meanwhile,
     * else null.
     */
    void drain(final RawEndpoint peer, final long stallNanos)
    {
        final long deadline = System.nanoTime() + stallNanos;
        if (posted > sendsRetired && !lastSignaled)
        {
            while (!post(posted, SendFlags.SIGNALED | SendFlags.RING))
            {
                pollAndCheck(peer, deadline);
            }
        }
        while (sendsRetired < posted)
        {
            pollAndCheck(peer, deadline);
        }
    }

    private void pollAndCheck(final RawEndpoint peer, final long deadline)
    {
        pollSend();
        if (peer != null)
        {
            peer.pollRecv();
        }
        if (System.nanoTime() - deadline > 0)
        {
            throw new IllegalStateException("the last send did not complete (" + sendsRetired + " of " + posted
                + " frames retired)");
        }
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
        final int hdr = RawFrame.headerLength(o);
        final long diff = peerMacKnown()
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

    private boolean peerMacKnown()
    {
        return (server ? o.raw().clientMac() : o.raw().serverMac()) >= 0;
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
        return received + " frames of " + length + " bytes, headers as perftest builds them"
            + (peerMacKnown() ? "" : " (source MAC not known here, not compared)") + "; "
            + (wholeChecked == received ? "payload pattern ok (an mlx5j peer)"
            : wholeChecked == 0 ? "payload not compared (perftest's random bytes)"
            : wholeChecked + " with the mlx5j payload pattern");
    }

    @Override
    public void close()
    {
        try
        {
            if (rule != null)
            {
                rule.close();
            }
        }
        finally
        {
            super.close();
        }
    }
}
