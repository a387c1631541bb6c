// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.rping;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.CmEvent;
import io.mlx5j.cm.CmId;
import io.mlx5j.cm.CmListener;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.cm.ConnectionRequest;
import io.mlx5j.verbs.Access;
import io.mlx5j.direct.Completion;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@code mlx5j rping}: rdma-core's rping (v44 librdmacm/examples/rping.c) over {@link io.mlx5j.cm} and the Java
 * direct path, so either side can be the unmodified C rping. The protocol, per ping:
 * <pre>
 *   client: SEND rping_rdma_info{start_buf, rkey, size}      server: RDMA READ size bytes of it into rdma_buf
 *                                                            server: SEND go-ahead (16 bytes)
 *   client: SEND rping_rdma_info{rdma_buf, rkey, size}       server: RDMA WRITE strlen(rdma_buf)+1 bytes there
 *                                                            server: SEND go-ahead
 *   client: -V compares start_buf with rdma_buf, -v prints "ping data: ..."
 * </pre>
 * {@code struct rping_rdma_info} is {@code __be64 buf; __be32 rkey; __be32 size}. The ping text is rping's:
 * {@code "rdma-ping-N: "} followed by letters cycling through 'A'..'z' from a start that advances by one per ping,
 * NUL at the end. The connection uses rping's parameters (responder resources and initiator depth 1, retry and RNR
 * retry 7), a QP of 16 send and 2 receive WQEs and a CQ of 32, one receive always posted. The client ends with
 * rdma_disconnect; the server ends cleanly when DISCONNECTED comes while it waits for the next ping.
 */
public final class RpingCommand
{
    private static final int WR_SEND = 1;
    private static final int WR_RECV = 2;
    private static final int WR_READ = 3;
    private static final int WR_WRITE = 4;
    /** sizeof(struct rping_rdma_info). */
    static final int INFO_BYTES = 16;
    /** RPING_SQ_DEPTH. */
    private static final int SQ_DEPTH = 16;
    /** IBV_WC_WR_FLUSH_ERR (enum ibv_wc_status): posted work flushed after the QP went to ERR. */
    private static final int WC_WR_FLUSH_ERR = 5;
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int IDLE_SPINS = 256;

    private final RpingOptions o;
    private final PrintStream out;
    private final PrintStream err;
    private final Resources res = new Resources();
    private final Completion wc = new Completion();
    private final byte[] info = new byte[INFO_BYTES];
    private CmConnection connection;
    private SendQueue sq;
    private RecvQueue rq;
    private CqPoller cq;
    private boolean infoReady;
    private boolean readDone;
    private boolean writeDone;

    private RpingCommand(final RpingOptions o, final PrintStream out, final PrintStream err)
    {
        this.o = o;
        this.out = out;
        this.err = err;
    }

    public static int run(final RpingOptions o, final PrintStream out, final PrintStream err)
    {
        final RpingCommand rping = new RpingCommand(o, out, err);
        try
        {
            return o.server() ? rping.server() : rping.client();
        }
        finally
        {
            rping.close();
        }
    }

    private ConnectOptions connectOptions()
    {
        // rping_init_conn_param: responder_resources 1, initiator_depth 1, retry_count 7, rnr_retry_count 7
        return ConnectOptions.builder().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7)
            .timeout(o.timeout()).source(o.source() == null ? null : new InetSocketAddress(o.source(), 0)).build();
    }

    private int client()
    {
        final InetSocketAddress server = new InetSocketAddress(o.address(), o.port());
        connection = CmConnection.connect(server, connectOptions(), this::createQp, this::receiveReady);
        debug("connected to " + server + " on " + res.context.deviceName() + " port " + connection.id().port());
        int start = 'A';
        for (int ping = 0; o.count() == 0 || ping < o.count(); ping++)
        {
            final byte[] text = pingText(ping, start, o.size());
            start = start == 'z' ? 'A' : start + 1;
            MemorySegment.copy(text, 0, res.startBuf, ValueLayout.JAVA_BYTE, 0, text.length);
            sendInfo(res.startBuf.address(), res.startMr.rkey());
            awaitInfo("the server's go-ahead after its RDMA READ of ping " + ping);
            sendInfo(res.rdmaBuf.address(), res.rdmaMr.rkey());
            awaitInfo("the server's go-ahead after its RDMA WRITE of ping " + ping);
            if (o.validate() && res.startBuf.mismatch(res.rdmaBuf) != -1)
            {
                throw new IllegalStateException("data mismatch! (ping " + ping + ")");
            }
            if (o.verbose())
            {
                out.println("ping data: " + cString(res.rdmaBuf));
                out.flush();
            }
        }
        connection.disconnect(o.timeout());
        return 0;
    }

    private int server()
    {
        try (CmListener listener = CmListener.bind(new InetSocketAddress(o.address(), o.port()), 3))
        {
            debug("listening on " + listener.localAddress());
            final ConnectionRequest request = listener.awaitRequest(o.timeout());
            debug("connect request from " + request.remoteAddress() + " on " + request.deviceName());
            connection = request.accept(this::createQp, connectOptions(), this::receiveReady);
        }
        while (true)
        {
            if (!awaitInfoOrDisconnect())
            {
                err.println("server DISCONNECT EVENT...");
                return 0;
            }
            final long addr = MemorySegment.ofArray(info).get(BE64, 0);
            final int rkey = MemorySegment.ofArray(info).get(BE32, 8);
            final int len = MemorySegment.ofArray(info).get(BE32, 12);
            if (len < 0 || len > o.size())
            {
                throw new IllegalStateException("the client's ping size " + len + " exceeds this server's -S "
                    + o.size());
            }
            readDone = false;
            post(sq.rdmaRead(WR_READ, res.rdmaBuf.address(), res.rdmaMr.lkey(), len, addr, rkey, flags()), "RDMA READ");
            awaitFlag(() -> readDone, "the RDMA READ of the client's ping");
            if (o.verbose())
            {
                out.println("server ping data: " + cString(res.rdmaBuf));
                out.flush();
            }
            post(sq.send(WR_SEND, res.sendBuf.address(), res.sendMr.lkey(), INFO_BYTES, flags()), "go-ahead SEND");
            awaitInfo("the client's sink advertisement");
            final long sink = MemorySegment.ofArray(info).get(BE64, 0);
            final int sinkRkey = MemorySegment.ofArray(info).get(BE32, 8);
            final int echo = cString(res.rdmaBuf).getBytes(StandardCharsets.ISO_8859_1).length + 1;
            writeDone = false;
            post(sq.rdmaWrite(WR_WRITE, res.rdmaBuf.address(), res.rdmaMr.lkey(), echo, sink, sinkRkey, flags()),
                "RDMA WRITE");
            awaitFlag(() -> writeDone, "the RDMA WRITE of the echo");
            post(sq.send(WR_SEND, res.sendBuf.address(), res.sendMr.lkey(), INFO_BYTES, flags()), "go-ahead SEND");
        }
    }

    /** rping_test_client's buffer: "rdma-ping-N: ", then 'A'..'z' cycling from {@code start}, NUL last. */
    static byte[] pingText(final int ping, final int start, final int size)
    {
        final byte[] b = new byte[size];
        final byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        final int cc = Math.min(head.length, size - 1);   // snprintf truncates to size - 1 characters
        System.arraycopy(head, 0, b, 0, cc);
        int c = start;
        for (int i = cc; i < size; i++)
        {
            b[i] = (byte) c;
            c = c == 'z' ? 'A' : c + 1;
        }
        b[size - 1] = 0;
        return b;
    }

    private static String cString(final MemorySegment buf)
    {
        long n = 0;
        while (n < buf.byteSize() && buf.get(ValueLayout.JAVA_BYTE, n) != 0)
        {
            n++;
        }
        return new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    private QueuePair createQp(final CmId id)
    {
        return res.create(id.deviceName(), o.size(), !o.server());
    }

    /** The QP can take receives: set up the direct queues and post the one receive rping keeps posted. */
    private void receiveReady(final QueuePair qp)
    {
        sq = SendQueue.of(qp, DoorbellMode.AUTO);
        rq = RecvQueue.of(qp);
        cq = CqPoller.of(res.cq).attach(sq).attach(rq);
        postRecv();
    }

    private void postRecv()
    {
        if (!rq.post(WR_RECV, res.recvBuf.address(), res.recvMr.lkey(), INFO_BYTES))
        {
            throw new IllegalStateException("receive queue full");
        }
        rq.ring();
    }

    private int flags()
    {
        return SendFlags.SIGNALED | SendFlags.RING;
    }

    private void sendInfo(final long addr, final int rkey)
    {
        res.sendBuf.set(BE64, 0, addr);
        res.sendBuf.set(BE32, 8, rkey);
        res.sendBuf.set(BE32, 12, o.size());
        infoReady = false;
        post(sq.send(WR_SEND, res.sendBuf.address(), res.sendMr.lkey(), INFO_BYTES, flags()), "SEND");
    }

    private static void post(final boolean posted, final String what)
    {
        if (!posted)
        {
            throw new IllegalStateException("could not post the " + what + ": send queue full");
        }
    }

    private void awaitInfo(final String what)
    {
        if (!awaitInfoOrDisconnect())
        {
            throw new IllegalStateException("the peer disconnected while waiting for " + what);
        }
    }

    /** Waits for the next 16-byte message; false if DISCONNECTED came instead. */
    private boolean awaitInfoOrDisconnect()
    {
        final boolean[] disconnected = new boolean[1];
        awaitFlag(() -> infoReady || (disconnected[0] = connection.isDisconnected()), "the peer's next message");
        if (infoReady)
        {
            infoReady = false;
            return true;
        }
        return !disconnected[0];
    }

    private interface Flag
    {
        boolean isSet();
    }

    /** Polls the CQ (and, when idle, the CM) until {@code flag} is set; fails after the timeout. */
    private void awaitFlag(final Flag flag, final String what)
    {
        final long deadline = System.nanoTime() + o.timeout().toNanos();
        int idle = 0;
        while (!flag.isSet())
        {
            if (cq.poll(wc) > 0)
            {
                idle = 0;
                completed();
                continue;
            }
            if (++idle % IDLE_SPINS == 0)
            {
                final CmEvent event = connection.awaitEvent(Duration.ZERO);
                if (event != null)
                {
                    debug("CM event " + event);
                }
                if (connection.isDisconnected())
                {
                    drainFlushed();
                    if (flag.isSet())
                    {
                        return;
                    }
                    throw new IllegalStateException("the peer disconnected while waiting for " + what);
                }
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("nothing from the peer for " + o.timeout().toSeconds()
                    + " s while waiting for " + what);
            }
            if (idle > IDLE_SPINS)
            {
                Thread.yield();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }

    private void drainFlushed()
    {
        while (cq.poll(wc) > 0)
        {
            completed();
        }
    }

    private void completed()
    {
        if (!wc.isSuccess())
        {
            if (wc.statusCode() == WC_WR_FLUSH_ERR)
            {
                return;   // rping ignores flushed work: the QP went to ERR on disconnect
            }
            throw new IllegalStateException("cq completion failed status " + wc.status() + " (" + wc.statusCode()
                + ") for wr_id " + wc.wrId());
        }
        switch ((int) wc.wrId())
        {
            case WR_RECV ->
            {
                if (wc.byteLen() != INFO_BYTES)
                {
                    throw new IllegalStateException("Received bogus data, size " + wc.byteLen());
                }
                MemorySegment.copy(res.recvBuf, ValueLayout.JAVA_BYTE, 0, info, 0, INFO_BYTES);
                infoReady = true;
                postRecv();
            }
            case WR_READ -> readDone = true;
            case WR_WRITE -> writeDone = true;
            case WR_SEND -> { }
            default -> throw new IllegalStateException("completion for unknown wr_id " + wc.wrId());
        }
    }

    private void debug(final String text)
    {
        if (o.debug())
        {
            err.println("mlx5j rping: " + text);
        }
    }

    private void close()
    {
        RuntimeException failure = null;
        if (connection != null)
        {
            try
            {
                connection.close();
            }
            catch (final RuntimeException ex)
            {
                failure = ex;
            }
        }
        res.close();
        if (failure != null)
        {
            throw failure;
        }
    }

    /** What rping_setup_qp and rping_setup_buffers make, on the device the CM chose. */
    private static final class Resources
    {
        Context context;
        ProtectionDomain pd;
        CompletionQueue cq;
        Arena memory;
        MemorySegment recvBuf;
        MemorySegment sendBuf;
        MemorySegment rdmaBuf;
        MemorySegment startBuf;
        MemoryRegion recvMr;
        MemoryRegion sendMr;
        MemoryRegion rdmaMr;
        MemoryRegion startMr;

        QueuePair create(final String device, final int size, final boolean client)
        {
            context = Context.open(device);
            pd = context.allocPd();
            cq = context.createCq(SQ_DEPTH * 2);
            memory = Arena.ofShared();
            recvBuf = memory.allocate(INFO_BYTES, 64);
            sendBuf = memory.allocate(INFO_BYTES, 64);
            rdmaBuf = memory.allocate(size, 4096);
            recvMr = pd.register(recvBuf, Access.LOCAL_WRITE);
            sendMr = pd.register(sendBuf, 0);
            rdmaMr = pd.register(rdmaBuf, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
            if (client)
            {
                startBuf = memory.allocate(size, 4096);
                startMr = pd.register(startBuf, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
            }
            return pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(SQ_DEPTH).maxRecvWr(2).maxSendSge(1)
                .maxRecvSge(1).build());
        }

        /** Everything but the QP, which the connection owns and has closed by now. */
        void close()
        {
            if (context != null)
            {
                context.close();   // MRs, CQ and PD with it, newest first
            }
            if (memory != null)
            {
                memory.close();
            }
        }
    }
}
