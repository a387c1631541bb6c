// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.CmListener;
import io.mlx5j.cm.CmServer;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code mlx5j blocks serve}: one registered region (REMOTE_READ | REMOTE_WRITE) and one RC QP per client, accepted
 * through rdma_cm with the region's {@link RegionInfo} as private data. The server only answers: its QPs are
 * responders, so it posts nothing and polls nothing (RDMA READ and WRITE complete without the responder's CPU).
 * Accepts run concurrently through a {@link CmServer} ({@value #ACCEPTS_IN_FLIGHT} at once, each bounded by the
 * connect timeout), so a slow or dead client holds one accept thread and never stalls the others; the serving loop
 * takes each established connection and reaps the ones that disconnected.
 * <p>
 * Confinement: {@link #serve} runs on one thread; {@link #stop} and {@link #region} may be called from any thread;
 * the QPs are made on the {@link CmServer}'s accept threads ({@link #createQp} only reads final fields and calls the
 * thread-safe {@code ibv_create_qp}).
 */
public final class BlocksServer implements AutoCloseable
{
    private static final Duration POLL = Duration.ofMillis(100);
    /** RDMA READs a client may have outstanding at each QP (the responder resources granted). */
    private static final int MAX_READS = 16;
    /** Accepts that may wait for their client's RTU at once. */
    static final int ACCEPTS_IN_FLIGHT = 16;

    private final BlocksOptions o;
    private final Context context;
    private final Arena arena;
    private final MemorySegment region;
    private final MemoryRegion mr;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final RegionInfo info;
    private final CmListener listener;
    private final List<CmConnection> live = new ArrayList<>();
    private volatile boolean stopped;
    private long accepted;
    private long gone;
    private int failuresReported;

    private BlocksServer(final BlocksOptions o)
    {
        this.o = o;
        this.arena = Arena.ofShared();
        Context c = null;
        CmListener l = null;
        try
        {
            final boolean zeroed;
            if (o.file() == null)
            {
                region = arena.allocate(o.size(), 4096);   // zeroed by the JDK
                zeroed = true;
            }
            else
            {
                final Path path = Path.of(o.file());
                final boolean fresh = !Files.exists(path) || Files.size(path) == 0;
                try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE))
                {
                    if (ch.size() < o.size())
                    {
                        ch.write(java.nio.ByteBuffer.allocate(1), o.size() - 1);   // extend: a sparse, zero tail
                    }
                    region = ch.map(FileChannel.MapMode.READ_WRITE, 0, o.size(), arena);
                }
                if (o.zero())
                {
                    region.fill((byte) 0);
                }
                zeroed = fresh || o.zero();
            }
            c = o.device() != null ? Context.open(o.device()) : Context.openFirst();
            pd = c.allocPd();
            mr = pd.register(region, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
            cq = c.createCq(16);
            info = new RegionInfo(region.address(), mr.rkey(), o.size(), zeroed);
            l = CmListener.bind(new InetSocketAddress(o.host(), o.port()), 1024);
        }
        catch (final IOException ex)
        {
            closeAll(c, null);
            throw new UncheckedIOException("cannot map " + o.file() + ": " + ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            closeAll(c, l);
            throw ex;
        }
        this.context = c;
        this.listener = l;
    }

    /** Maps or allocates the region, registers it and listens; {@link #serve} then answers clients. */
    static BlocksServer open(final BlocksOptions o)
    {
        return new BlocksServer(o);
    }

    /** The exported region (tests plant corruption through it). */
    MemorySegment region()
    {
        return region;
    }

    /** What each client is told. */
    RegionInfo info()
    {
        return info;
    }

    /** The port the listener is bound to. */
    int port()
    {
        return listener.port();
    }

    /** Ends {@link #serve} within about 100 ms; any thread. */
    void stop()
    {
        stopped = true;
    }

    /** Accepts and reaps connections until {@link #stop} or, with {@code --clients N}, N have come and gone. */
    void serve(final PrintStream out)
    {
        out.printf("blocks serve: %s region of %d bytes at 0x%x rkey 0x%x%s on %s, listening on %s:%d%n",
            o.file() == null ? "anonymous" : o.file(), info.size(), info.address(), info.rkey(),
            info.zeroed() ? " (zeroed)" : "", context.deviceName(), o.host(), listener.port());
        out.flush();
        long lastReport = 0;
        long reported = 0;
        long lastReap = 0;
        final CmServer server = CmServer.start(listener, ACCEPTS_IN_FLIGHT, this::createQp,
            ConnectOptions.builder().responderResources(MAX_READS).initiatorDepth(0).retryCount(7).rnrRetryCount(7)
                .timeout(o.timeout()).privateData(info.encode()).build(), null);
        try
        {
            while (!stopped && (o.clients() == 0 || gone < o.clients()))
            {
                final boolean busy = takeOne(server);
                reportFailures(server);
                long now = System.nanoTime();
                // reaping asks every connection for its events: while requests queue up, only once a second, so that
                // accepting N clients does not cost N^2 event polls
                if (!busy || now - lastReap > 1_000_000_000L)
                {
                    reap();
                    lastReap = now;
                }
                now = System.nanoTime();
                // at most once a second, and only when something changed (an idle server stays quiet)
                if (now - lastReport > 1_000_000_000L && accepted + gone != reported)
                {
                    lastReport = now;
                    reported = accepted + gone;
                    out.printf("blocks serve: %d connected, %d accepted, %d gone%n", live.size(), accepted, gone);
                    out.flush();
                }
            }
        }
        finally
        {
            server.close();    // waits for the accepts in flight; closes what was established but not taken
        }
        reportFailures(server);
        out.printf("blocks serve: done, %d accepted, %d gone, %d accepts failed%n", accepted, gone, server.failed());
    }

    /** Waits up to 100 ms for one established connection and keeps it; false if none came. */
    private boolean takeOne(final CmServer server)
    {
        final CmConnection c;
        try
        {
            c = server.take(POLL);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            stopped = true;
            return false;
        }
        if (c == null)
        {
            return false;
        }
        live.add(c);
        accepted++;
        return true;
    }

    /** One client's failed accept (it left, timed out, or the QP could not be made) must not end the service. */
    private void reportFailures(final CmServer server)
    {
        final int failed = server.failed();
        if (failed != failuresReported)
        {
            final List<RuntimeException> recent = server.failures();
            final int fresh = Math.min(failed - failuresReported, recent.size());
            for (int k = recent.size() - fresh; k < recent.size(); k++)
            {
                System.err.println("mlx5j: blocks serve: accept failed: " + recent.get(k).getMessage());
            }
            failuresReported = failed;
        }
    }

    private QueuePair createQp(final io.mlx5j.cm.CmId id)
    {
        if (!context.deviceName().equals(id.deviceName()))
        {
            throw new IllegalStateException("rdma_cm resolved the client to device " + id.deviceName()
                + " but the region is registered on " + context.deviceName() + ": pass -d " + id.deviceName());
        }
        return pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)
            .build());
    }

    /** Closes the connections whose client disconnected. */
    private void reap()
    {
        for (int i = live.size() - 1; i >= 0; i--)
        {
            final CmConnection c = live.get(i);
            while (!c.isDisconnected() && c.awaitEvent(Duration.ZERO) != null)
            {
                // drain this connection's events (DISCONNECTED sets isDisconnected)
            }
            if (c.isDisconnected())
            {
                live.remove(i);
                gone++;
                c.close();
            }
        }
    }

    /** Closes every connection, the listener, the registration and the device; unmaps the region. */
    @Override
    public void close()
    {
        for (final CmConnection c : live)
        {
            try
            {
                c.close();
            }
            catch (final RuntimeException ex)
            {
                System.err.println("mlx5j: blocks serve: closing " + c + ": " + ex.getMessage());
            }
        }
        live.clear();
        closeAll(context, listener);
    }

    private void closeAll(final Context c, final CmListener l)
    {
        try
        {
            if (l != null)
            {
                l.close();
            }
        }
        finally
        {
            try
            {
                if (c != null)
                {
                    c.close();
                }
            }
            finally
            {
                arena.close();
            }
        }
    }

    /** Byte {@code offset} of the region (tests). */
    byte byteAt(final long offset)
    {
        return region.get(ValueLayout.JAVA_BYTE, offset);
    }
}
