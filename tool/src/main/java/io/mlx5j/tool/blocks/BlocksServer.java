// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.CmException;
import io.mlx5j.cm.CmListener;
import io.mlx5j.cm.CmTimeoutException;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.cm.ConnectionRequest;
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
 * Accepts are serial (each waits for the client's ESTABLISHED); between them the loop reaps the connections that
 * disconnected.
 * <p>
 * Confinement: {@link #serve} runs on one thread; {@link #stop} and {@link #region} may be called from any thread.
 */
public final class BlocksServer implements AutoCloseable
{
    private static final Duration POLL = Duration.ofMillis(100);
    /** RDMA READs a client may have outstanding at each QP (the responder resources granted). */
    private static final int MAX_READS = 16;

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
        while (!stopped && (o.clients() == 0 || gone < o.clients()))
        {
            final boolean busy = acceptOne();
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
        out.printf("blocks serve: done, %d accepted, %d gone%n", accepted, gone);
    }

    /** Waits up to 100 ms for one request and accepts it; false if none came. */
    private boolean acceptOne()
    {
        final ConnectionRequest request;
        try
        {
            request = listener.awaitRequest(POLL);
        }
        catch (final CmTimeoutException ex)
        {
            return false;
        }
        try
        {
            final int reads = Math.min(MAX_READS, Math.max(1, request.initiatorDepth()));
            live.add(request.accept(this::createQp, ConnectOptions.builder().responderResources(reads)
                .initiatorDepth(0).retryCount(7).rnrRetryCount(7).timeout(o.timeout())
                .privateData(info.encode()).build()));
            accepted++;
        }
        catch (final CmException | IllegalStateException ex)
        {
            // one client's failed accept (it left, or timed out) must not end the service of the others
            System.err.println("mlx5j: blocks serve: accept from " + request.remoteAddress() + " failed: "
                + ex.getMessage());
        }
        return true;
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
