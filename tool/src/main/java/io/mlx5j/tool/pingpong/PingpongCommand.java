// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.pingpong;

import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.direct.Completion;
import io.mlx5j.verbs.CompletionChannel;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.tool.GidText;
import io.mlx5j.tool.Mlx5jTool;
import io.mlx5j.tool.oob.OobConnection;
import io.mlx5j.tool.oob.OobServer;
import io.mlx5j.tool.oob.PingpongExchange;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code mlx5j pingpong}: the protocol of rdma-core's ibv_rc_pingpong and ibv_ud_pingpong (rdma-core v44
 * libibverbs/examples/rc_pingpong.c, ud_pingpong.c), with the Java direct path doing the posting and polling, so
 * either side can be the unmodified C example. What the examples do, and so what this does:
 * <ul>
 *   <li>one buffer of {@code size} bytes (UD: 40 more in front, where a receive puts the GRH), filled with 0x7b;</li>
 *   <li>a QP with one send WQE and {@code rx-depth} receives, all posted before the address exchange; the receive
 *       queue is topped up to rx-depth whenever at most one receive is left;</li>
 *   <li>UD: Q_Key 0x11111111, an address handle to the peer, payload sent from buffer + 40;</li>
 *   <li>the client sends first; after that each side sends its next message once its previous send and a receive
 *       have both completed, until it has sent and received {@code iters} messages (wr_id 1 = receive, 2 = send);</li>
 *   <li>payloads go inline when the QP's granted max inline data covers them;</li>
 *   <li>the same output lines: local/remote address, bytes and Mbit/sec, iterations and usec/iter.</li>
 * </ul>
 * Unlike the examples, a peer that stops answering is reported after {@code --timeout} instead of waiting forever.
 */
public final class PingpongCommand
{
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    /** ud_pingpong's Q_Key. */
    static final int UD_QKEY = 0x11111111;
    /** Bytes of the GRH a UD receive starts with. */
    static final int GRH_BYTES = 40;
    /** Empty polls before the loop starts yielding the CPU on each further empty poll. */
    private static final int IDLE_SPINS = 256;

    private PingpongCommand()
    {
    }

    public static int run(final PingpongOptions o, final PrintStream out, final PrintStream err)
    {
        final int pageSize = 4096;
        final int offset = o.ud() ? GRH_BYTES : 0;
        try (Context context = o.device() == null ? Context.openFirst() : Context.open(o.device());
             ProtectionDomain pd = context.allocPd();
             Arena memory = Arena.ofShared())
        {
            err.println("mlx5j: device " + context.deviceName() + Mlx5jTool.platform());
            if (!context.isMlx5())
            {
                throw new IllegalStateException(context.deviceName() + " is not an mlx5 device");
            }
            final PortAttributes port = context.queryPort(o.ibPort());
            if (o.ud() && o.size() > port.activeMtuBytes())
            {
                throw new IllegalArgumentException("Requested size larger than port MTU (" + port.activeMtuBytes()
                    + ")");
            }
            final MemorySegment buf = memory.allocate(o.size() + offset, pageSize);
            buf.fill((byte) 0x7b);
            try (MemoryRegion mr = pd.register(buf, Access.LOCAL_WRITE);
                 CompletionChannel channel = o.events() ? context.createCompletionChannel() : null;
                 CompletionQueue cqObject = context.createCq(o.rxDepth() + 1, 64, channel, 0);
                 QueuePair qp = pd.createQp(QpConfig.builder(o.ud() ? QpType.UD : QpType.RC, cqObject)
                     .maxSendWr(1).maxRecvWr(o.rxDepth()).maxSendSge(1).maxRecvSge(1).maxInlineData(0).build()))
            {
                final SendQueue sq = SendQueue.of(qp, DoorbellMode.AUTO);
                final RecvQueue rq = RecvQueue.of(qp);
                final CqPoller cq = CqPoller.of(cqObject).attach(sq).attach(rq);
                // ibv_query_qp's granted max_inline_data decides, as in the examples
                final int sendFlags = SendFlags.SIGNALED | SendFlags.RING
                    | (qp.capabilities().maxInlineData() >= o.size() ? SendFlags.INLINE : 0);
                qp.toInit(o.ud() ? InitAttributes.datagram(o.ibPort(), UD_QKEY) : InitAttributes.connected(o.ibPort(),
                    0));
                final Receives receives = new Receives(rq, buf.address(), mr.lkey(), o.size() + offset, o.rxDepth());
                receives.topUp();
                if (o.events())
                {
                    cq.arm(false); // ibv_req_notify_cq before the exchange, as the examples do
                }

                if (!port.isEthernet() && port.lid() == 0)
                {
                    throw new IllegalStateException("Couldn't get local LID");
                }
                final Gid gid = o.gidIndex() >= 0 ? context.queryGid(o.ibPort(), o.gidIndex()) : Gid.ZERO;
                final PeerInfo local = PeerInfo.of(port.lid(), qp.qpn(), ThreadLocalRandom.current().nextInt(1 << 24),
                    gid);
                final AddressHandle[] ah = new AddressHandle[1];
                final PeerInfo remote;
                if (o.isServer())
                {
                    // listening before the address line is printed: whoever waits for that line may connect
                    try (OobServer listener = OobServer.listen(o.tcpPort()))
                    {
                        printLocal(out, o, local);
                        try (OobConnection c = listener.accept(o.timeout()))
                        {
                            remote = PingpongExchange.server(c, local, r -> ah[0] = connect(pd, qp, o, r, local));
                        }
                    }
                }
                else
                {
                    printLocal(out, o, local);
                    try (OobConnection c = OobConnection.connect(o.host(), o.tcpPort(), o.timeout()))
                    {
                        remote = PingpongExchange.client(c, local);
                    }
                }
                out.printf(Locale.ROOT, "  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n",
                    remote.lid(), remote.qpn(), remote.psn(), GidText.ntop(remote.gid()));
                out.flush();
                if (!o.isServer())
                {
                    ah[0] = connect(pd, qp, o, remote, local);
                }
                try
                {
                    final Completion wc = new Completion();
                    final long sendAddr = buf.address() + offset;
                    if (!o.isServer() && o.validate())
                    {
                        for (int i = 0; i < o.size(); i += pageSize)
                        {
                            buf.set(ValueLayout.JAVA_BYTE, offset + i, (byte) 0);
                        }
                    }
                    final long stall = o.timeout().toNanos();
                    int pending = RECV_WRID;
                    int scnt = 0;
                    int rcnt = 0;
                    final long start = System.nanoTime();
                    if (!o.isServer())
                    {
                        postSend(sq, o, ah[0], remote, sendAddr, mr.lkey(), sendFlags);
                        pending |= SEND_WRID;
                    }
                    long deadline = start + stall;
                    int idle = 0;
                    boolean asleep = o.events(); // -e: the CQ is armed and empty as far as we know
                    while (rcnt < o.iterations() || scnt < o.iterations())
                    {
                        if (asleep)
                        {
                            // -e: sleep until the CQ fires, re-arm, then drain what is there (the examples poll
                            // once per event; draining until empty also takes CQEs that came before the re-arm)
                            if (!cq.awaitEvent(o.timeout().toMillis()))
                            {
                                throw new IllegalStateException("no completion event for " + o.timeout().toSeconds()
                                    + " s after " + scnt + " sends and " + rcnt + " receives (peer gone?)");
                            }
                            cq.arm(false);
                            asleep = false;
                        }
                        if (cq.poll(wc) == 0)
                        {
                            if (o.events())
                            {
                                asleep = true; // drained and armed: an event follows the next CQE
                                continue;
                            }
                            if (System.nanoTime() - deadline > 0)
                            {
                                throw new IllegalStateException("no completion for " + o.timeout().toSeconds()
                                    + " s after " + scnt + " sends and " + rcnt + " receives (peer gone?)");
                            }
                            // Not a benchmark: after a short spin, give the core away on every empty poll. Whatever
                            // moves the data (an emulated device's engine thread, the peer on a shared core) may
                            // need it; the C examples' ibv_poll_cq lends its cycles to the emulator, Java cannot.
                            if (++idle > IDLE_SPINS)
                            {
                                Thread.yield();
                            }
                            else
                            {
                                Thread.onSpinWait();
                            }
                            continue;
                        }
                        idle = 0;
                        deadline = System.nanoTime() + stall;
                        if (!wc.isSuccess())
                        {
                            throw new IllegalStateException(String.format(Locale.ROOT,
                                "Failed status %s (%d) for wr_id %d", wc.status(), wc.statusCode(), wc.wrId()));
                        }
                        final int wrId = (int) wc.wrId();
                        if (wrId == SEND_WRID)
                        {
                            scnt++;
                        }
                        else if (wrId == RECV_WRID)
                        {
                            receives.completed();
                            rcnt++;
                        }
                        else
                        {
                            throw new IllegalStateException("Completion for unknown wr_id " + wrId);
                        }
                        pending &= ~wrId;
                        if (scnt < o.iterations() && pending == 0)
                        {
                            postSend(sq, o, ah[0], remote, sendAddr, mr.lkey(), sendFlags);
                            pending = RECV_WRID | SEND_WRID;
                        }
                    }
                    final double usec = (System.nanoTime() - start) / 1e3;
                    final long bytes = (long) o.size() * o.iterations() * 2;
                    out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6,
                        bytes * 8.0 / usec);
                    out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", o.iterations(), usec / 1e6,
                        usec / o.iterations());
                    if (o.isServer() && o.validate())
                    {
                        for (int i = 0; i < o.size(); i += pageSize)
                        {
                            if (buf.get(ValueLayout.JAVA_BYTE, offset + i) != 0)
                            {
                                out.printf(Locale.ROOT, "invalid data in page %d%n", i / pageSize);
                            }
                        }
                    }
                    out.flush();
                    return 0;
                }
                finally
                {
                    if (ah[0] != null)
                    {
                        ah[0].close();
                    }
                }
            }
        }
    }

    /** The examples' "local address:" line (ud_pingpong has a colon where rc_pingpong has a comma). */
    private static void printLocal(final PrintStream out, final PingpongOptions o, final PeerInfo local)
    {
        out.printf(Locale.ROOT, "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s%n", local.lid(),
            local.qpn(), local.psn(), o.ud() ? ":" : ",", GidText.ntop(local.gid()));
        out.flush();
    }

    /** pp_connect_ctx: RTR/RTS towards the peer (RC), or RTR/RTS and an address handle (UD). */
    private static AddressHandle connect(final ProtectionDomain pd, final QueuePair qp, final PingpongOptions o,
        final PeerInfo remote, final PeerInfo local)
    {
        // the examples route through a GRH only when the peer's GID has a non-zero interface id
        final boolean global = remote.gid().interfaceId() != 0;
        final AddressVector path = new AddressVector(o.ibPort(), remote.lid(), o.sl(), 0, 0, global,
            global ? remote.gid() : null, 0, Math.max(0, o.gidIndex()), global ? 1 : 0, 0);
        if (o.ud())
        {
            qp.toRtr(null);
            qp.toRts(RtsAttributes.of(local.psn()));
            return pd.createAh(path);
        }
        final int mtu = Integer.numberOfTrailingZeros(o.mtu()) - 7; // enum ibv_mtu: 256 -> 1 ... 4096 -> 5
        qp.toRtr(new RtrAttributes(mtu, remote.qpn(), remote.psn(), 1, 12, path));
        qp.toRts(RtsAttributes.of(local.psn()));
        return null;
    }

    private static void postSend(final SendQueue sq, final PingpongOptions o, final AddressHandle ah,
        final PeerInfo remote, final long addr, final int lkey, final int flags)
    {
        final boolean posted = o.ud()
            ? sq.udSend(SEND_WRID, ah, remote.qpn(), UD_QKEY, addr, lkey, o.size(), flags)
            : sq.send(SEND_WRID, addr, lkey, o.size(), flags);
        if (!posted)
        {
            // one send is outstanding at most, and only after its completion: a full ring is a bug here
            throw new IllegalStateException("Couldn't post send: send queue full");
        }
    }

    /** The receive side of the examples: rx-depth receives, topped up when at most one is left. */
    private static final class Receives
    {
        private final RecvQueue rq;
        private final long addr;
        private final int lkey;
        private final int length;
        private final int depth;
        private int outstanding;

        Receives(final RecvQueue rq, final long addr, final int lkey, final int length, final int depth)
        {
            this.rq = rq;
            this.addr = addr;
            this.lkey = lkey;
            this.length = length;
            this.depth = depth;
        }

        void topUp()
        {
            while (outstanding < depth)
            {
                if (!rq.post(RECV_WRID, addr, lkey, length))
                {
                    throw new IllegalStateException("Couldn't post receive (" + outstanding + ")");
                }
                outstanding++;
            }
            rq.ring();
        }

        void completed()
        {
            if (--outstanding <= 1)
            {
                topUp();
            }
        }
    }
}
