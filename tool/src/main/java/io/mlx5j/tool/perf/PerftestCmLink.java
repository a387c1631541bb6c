// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.CmId;
import io.mlx5j.cm.CmListener;
import io.mlx5j.cm.CmRejectedException;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.cm.ConnectionRequest;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.WcOpcode;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * perftest's control connection with {@code -R} (perftest 4.5-0.17 perftest_communication.c rdma_client_connect,
 * rdma_server_connect, rdma_write_data / rdma_read_data): an RC QP connected through rdma_cm to the peer's port
 * {@code -p}; each message is one signaled SEND into the one receive the peer keeps posted (it re-posts after each
 * message it reads, and every exchange alternates, so a receive is always there). The connection parameters are
 * perftest's for this QP: no RDMA READ resources, retry count 7, RNR retry 7, no private data.
 * <p>
 * The QP is an mlx5j {@link RcEndpoint} driven by the Java direct path, like the data QP.
 */
final class PerftestCmLink implements PerftestLink
{
    private static final int IDLE_SPINS = 1024;
    private static final long IDLE_PARK_NANOS = 50_000;
    private static final long RETRY_NANOS = 100_000_000;

    private final CmConnection connection;
    private final RcEndpoint e;
    private Duration timeout;
    private long sends;
    private long sendsDone;
    /** Messages received so far, and those handed to {@link #read}. */
    private long received;
    private long consumed;
    /** The newest message: the protocol alternates, so at most one is unread. */
    private byte[] pending;

    private PerftestCmLink(final CmConnection connection, final RcEndpoint e, final Duration timeout)
    {
        this.connection = connection;
        this.e = e;
        this.timeout = timeout;
    }

    /** perftest's rdma_conn_param for the control QP and, without READs/atomics, for the data QP. */
    static ConnectOptions options(final int outReads, final Duration timeout)
    {
        return ConnectOptions.builder().responderResources(outReads).initiatorDepth(outReads).retryCount(7)
            .rnrRetryCount(7).timeout(timeout).build();
    }

    /** The client side: resolves {@code host}, connects to its rdma_cm port {@code port}. */
    static PerftestCmLink connect(final Context context, final ProtectionDomain pd, final String host,
        final int port, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final RcEndpoint[] made = new RcEndpoint[1];
            try
            {
                final CmConnection c = CmConnection.connect(new InetSocketAddress(host, port), options(0, timeout),
                    id -> (made[0] = controlEndpoint(context, pd, id)).qp, qp -> ready(made[0]));
                return new PerftestCmLink(c, made[0], timeout);
            }
            catch (final CmRejectedException ex)
            {
                closeQuietly(made[0], ex);
                // nobody listens yet: perftest's client gives up at once; retrying within the timeout lets scripts
                // start both sides together (as the TCP link does)
                if (ex.reason() != CmRejectedException.REASON_NO_LISTENER || System.nanoTime() - deadline > 0)
                {
                    throw ex;
                }
                LockSupport.parkNanos(RETRY_NANOS);
            }
            catch (final RuntimeException ex)
            {
                closeQuietly(made[0], ex);
                throw ex;
            }
        }
    }

    /** The server side: the next connection request on {@code listener}, accepted. */
    static PerftestCmLink accept(final CmListener listener, final Context context, final ProtectionDomain pd,
        final Duration timeout)
    {
        final ConnectionRequest request = listener.awaitRequest(timeout);
        final RcEndpoint[] made = new RcEndpoint[1];
        try
        {
            final CmConnection c = request.accept(id -> (made[0] = controlEndpoint(context, pd, id)).qp,
                options(0, timeout), qp -> ready(made[0]));
            return new PerftestCmLink(c, made[0], timeout);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(made[0], ex);
            throw ex;
        }
    }

    /** The QP of a perftest control connection: a few SENDs, two receives of the largest message. */
    private static RcEndpoint controlEndpoint(final Context context, final ProtectionDomain pd, final CmId id)
    {
        requireDevice(context, id);
        return new RcEndpoint(context, pd, id.port(), -1, 4, 2, 0, 64);
    }

    /** The QP can take receives (INIT): the Java queues, and the receive the peer's first message needs. */
    private static void ready(final RcEndpoint e)
    {
        // the data QP may share this QP's BlueFlame register: locked rings (the control path is not measured)
        e.directPath(io.mlx5j.doorbell.DoorbellMode.AUTO, true);
        e.postReceives(2);   // of the whole 64-byte area: perftest's messages are at most 56 bytes
    }

    /** The device the CM chose must be the one this run opened (-d, or the first). */
    static void requireDevice(final Context context, final CmId id)
    {
        if (!context.deviceName().equals(id.deviceName()))
        {
            throw new IllegalStateException("rdma_cm resolved the address to device " + id.deviceName()
                + " but this run uses " + context.deviceName() + ": pass -d " + id.deviceName());
        }
    }

    @Override
    public void write(final byte[] msg, final String what) throws IOException
    {
        MemorySegment.copy(msg, 0, e.buffer, ValueLayout.JAVA_BYTE, e.areaSize, msg.length);
        final long wrId = ++sends;
        if (!e.sq.send(wrId, e.sendArea, e.lkey, msg.length, SendFlags.SIGNALED | SendFlags.RING))
        {
            throw new IOException("control QP send queue full while sending the " + what);
        }
        await(() -> sendsDone >= wrId, what + " (its SEND completion)");
    }

    @Override
    public byte[] read(final int length, final String what) throws IOException
    {
        final long want = consumed + 1;
        await(() -> received >= want, what);
        consumed = want;
        if (pending.length != length)
        {
            throw new IOException("the peer sent " + pending.length + " bytes as its " + what + ", expected "
                + length + " (not the same perftest test or options?)");
        }
        return pending;
    }

    /**
     * One completion: a receive's message is copied out at once and the receive posted again (the peer's next
     * message may arrive while we wait for our own SEND's completion); a SEND's completion is counted.
     */
    private int poll() throws IOException
    {
        if (e.cq.poll(e.wc) == 0)
        {
            return 0;
        }
        if (!e.wc.isSuccess())
        {
            throw new IOException("error completion on the rdma_cm control QP: " + e.wc);
        }
        if (e.wc.opcode() == WcOpcode.RECV)
        {
            if (received != consumed)
            {
                throw new IOException("the peer sent two messages without waiting for an answer");
            }
            pending = new byte[e.wc.byteLen()];
            MemorySegment.copy(e.buffer, ValueLayout.JAVA_BYTE, 0, pending, 0, pending.length);
            received++;
            if (!e.rq.post(received, e.recvArea, e.lkey, (int) e.areaSize))
            {
                throw new IOException("control QP receive queue full");
            }
            e.rq.ring();
        }
        else
        {
            sendsDone = e.wc.wrId();
        }
        return 1;
    }

    private interface Condition
    {
        boolean met();
    }

    /** Polls the control CQ until {@code done}; a disconnect or the read timeout end the wait with an exception. */
    private void await(final Condition done, final String what) throws IOException
    {
        final long limit = timeout.toNanos();
        final long deadline = System.nanoTime() + limit;
        int idle = 0;
        while (!done.met())
        {
            if (poll() != 0)
            {
                idle = 0;
                continue;
            }
            if (++idle % IDLE_SPINS == 0)
            {
                connection.awaitEvent(Duration.ZERO);
                if (connection.isDisconnected())
                {
                    throw new IOException("the peer disconnected the rdma_cm control connection during " + what);
                }
                if (limit != 0 && System.nanoTime() - deadline > 0)
                {
                    throw new IOException("the peer sent no " + what + " in time");
                }
            }
            if (idle > IDLE_SPINS)
            {
                LockSupport.parkNanos(IDLE_PARK_NANOS);   // a peer may run for long: leave it the CPU
            }
        }
    }

    @Override
    public void readTimeout(final Duration t)
    {
        timeout = t;
    }

    @Override
    public boolean binaryDestinations()
    {
        return true;
    }

    @Override
    public void finish()
    {
        // over rdma_cm ctx_close_connection ends with its handshake
    }

    long bfRegister()
    {
        return e.bfRegister();
    }

    @Override
    public String peer()
    {
        return String.valueOf(connection.remoteAddress());
    }

    /** Disconnects (without waiting: perftest's side exits without a word) and frees the QP and its buffer. */
    @Override
    public void close()
    {
        try
        {
            connection.close();
        }
        finally
        {
            e.close();
        }
    }

    private static void closeQuietly(final RcEndpoint e, final RuntimeException cause)
    {
        if (e != null)
        {
            try
            {
                e.close();
            }
            catch (final RuntimeException ex)
            {
                cause.addSuppressed(ex);
            }
        }
    }
}
