// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.CmId;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.cm.EventChannel;
import io.mlx5j.cm.PortSpace;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code mlx5j blocks bench}: N RC connections to a {@link BlocksServer}, each with {@code queueDepth} I/O slots.
 * Slot {@code g} (of {@code G = N * queueDepth}) owns the blocks {@code g, g + G, g + 2G, ...}, so no two I/Os
 * ever touch one block at once and each block's expected generation is exact. Each slot keeps one I/O in flight: a
 * WRITE of a freshly filled block ({@link BlockFormat}) or a READ that is verified on completion, chosen by the read
 * percentage, on a random block of its own. After the timed phase every block written (or, with --verify-all, every
 * block) is read back and verified.
 * <p>
 * The I/O loop allocates nothing: one CQ and one {@link CqPoller} for all QPs, the slot's index in the wr_id,
 * latencies in a {@link LatencyHistogram}. Confinement: the calling thread does everything.
 */
final class BlocksBench
{
    private static final int PHASE_RUN = 0;
    private static final int PHASE_VERIFY = 1;
    private static final int MAX_REPORTED = 10;

    private final BlocksOptions o;
    private final PrintStream out;
    private final PrintStream err;
    private final int slots;
    private final int depth;
    private final int blockSize;
    private final int epoch = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
    private final LatencyHistogram latency = new LatencyHistogram();
    private final BlockFormat format;

    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cqObject;
    private Arena arena;
    private MemorySegment local;
    private MemoryRegion mr;
    private EventChannel channel;
    private CmConnection[] connections;
    private SendQueue[] sqs;
    private CqPoller cq;
    private final Completion wc = new Completion();
    private RegionInfo region;
    private long blocks;

    /** Per slot: its buffer's view (for the CRC), the block in flight, its start time, READ or WRITE. */
    private ByteBuffer[] views;
    private long[] inFlightBlock;
    private long[] startNanos;
    private boolean[] inFlightRead;
    private boolean[] busy;
    /** Per slot, in the verify phase: the next k of its blocks g + k * G. */
    private long[] verifyNext;
    /** Per block: this run's completed WRITEs (the generation the block must hold). */
    private int[] generation;
    /** Per connection: I/Os completed in the timed phase. */
    private long[] perConnection;
    private long seed = ThreadLocalRandom.current().nextLong() | 1;

    private long reads;
    private long readsUnwritten;
    private long readsEarlierRun;
    private long writes;
    private long verified;
    private long verifiedEarlierRun;
    private long verifiedUnwritten;
    private long corrupt;
    private int phase;

    BlocksBench(final BlocksOptions o, final PrintStream out, final PrintStream err)
    {
        this.o = o;
        this.out = out;
        this.err = err;
        this.depth = o.queueDepth();
        this.slots = o.connections() * depth;
        this.blockSize = o.blockSize();
        this.format = new BlockFormat(blockSize);
    }

    /** Connects, runs, verifies, prints the report; returns the exit status (1 if any block failed). */
    int run()
    {
        try
        {
            connect();
            out.printf(Locale.ROOT, "blocks bench: %d connections x queue depth %d to %s:%d (%s), region %d bytes = "
                + "%d blocks of %d bytes%s, %d%% reads, %.1f s%n", o.connections(), depth, o.host(), o.port(),
                context.deviceName(), region.size(), blocks, blockSize, region.zeroed() ? " (zeroed)" : "",
                o.readPercent(), o.duration().toNanos() * 1e-9);
            out.flush();
            final long elapsed = timed();
            final long readBack = verifyPass();
            report(elapsed, readBack);
            return corrupt == 0 ? 0 : 1;
        }
        finally
        {
            close();
        }
    }

    private void connect()
    {
        channel = EventChannel.create();
        connections = new CmConnection[o.connections()];
        sqs = new SendQueue[o.connections()];
        final InetSocketAddress server = new InetSocketAddress(o.host(), o.port());
        final ConnectOptions options = ConnectOptions.builder().initiatorDepth(Math.min(16, depth))
            .responderResources(0).retryCount(7).rnrRetryCount(7).timeout(o.timeout()).build();
        for (int i = 0; i < connections.length; i++)
        {
            connections[i] = CmConnection.connect(channel, PortSpace.TCP, server, options, this::createQp);
            final RegionInfo r = RegionInfo.decode(connections[i].peerPrivateData());
            if (region == null)
            {
                region = r;
                setUp();
            }
            else if (!r.equals(region))
            {
                throw new IllegalStateException("connection " + i + " was given another region (" + r + ") than "
                    + "connection 0 (" + region + ")");
            }
            sqs[i] = SendQueue.of(connections[i].qp(), DoorbellMode.AUTO);
            cq.attach(sqs[i]);
        }
    }

    /** On the first connection's device: PD, the one CQ and the slots' registered buffers. */
    private QueuePair createQp(final CmId id)
    {
        if (context == null)
        {
            if (o.device() != null && !o.device().equals(id.deviceName()))
            {
                throw new IllegalStateException("rdma_cm resolved " + o.host() + " to device " + id.deviceName()
                    + ", not " + o.device());
            }
            context = Context.open(id.deviceName());
            pd = context.allocPd();
            cqObject = context.createCq(Math.max(64, slots));
            cq = CqPoller.of(cqObject);
            arena = Arena.ofShared();
            local = arena.allocate((long) slots * blockSize, 4096);
            mr = pd.register(local, Access.LOCAL_WRITE);
        }
        else if (!context.deviceName().equals(id.deviceName()))
        {
            throw new IllegalStateException("rdma_cm resolved a connection to device " + id.deviceName()
                + " after " + context.deviceName());
        }
        return pd.createQp(QpConfig.builder(QpType.RC, cqObject).maxSendWr(depth).maxRecvWr(1).maxSendSge(1)
            .maxRecvSge(1).build());
    }

    private void setUp()
    {
        if (region.size() / blockSize > Integer.MAX_VALUE)
        {
            throw new IllegalStateException("region of " + region.size() + " bytes has too many blocks of "
                + blockSize);
        }
        blocks = region.size() / blockSize;
        if (blocks < slots)
        {
            throw new IllegalStateException("the region holds " + blocks + " blocks of " + blockSize + " bytes, "
                + "fewer than connections x queue depth = " + slots + " (each I/O slot needs a block of its own)");
        }
        generation = new int[(int) blocks];
        views = new ByteBuffer[slots];
        for (int g = 0; g < slots; g++)
        {
            views[g] = local.asSlice((long) g * blockSize, blockSize).asByteBuffer();
        }
        inFlightBlock = new long[slots];
        startNanos = new long[slots];
        inFlightRead = new boolean[slots];
        busy = new boolean[slots];
        verifyNext = new long[slots];
        perConnection = new long[o.connections()];
    }

    /** The timed phase: returns its length in nanoseconds (up to the last completion). */
    private long timed()
    {
        phase = PHASE_RUN;
        final long start = System.nanoTime();
        final long end = start + o.duration().toNanos();
        for (int g = 0; g < slots; g++)
        {
            issue(g, start);
        }
        long nextProgress = start + 1_000_000_000L;
        long lastOps = 0;
        long lastTime = start;
        long polls = 0;
        long now = start;
        int inFlight = slots;
        boolean issuing = true;
        while (inFlight > 0)
        {
            if (cq.poll(wc) == 0)
            {
                if ((++polls & 255) == 0)
                {
                    now = System.nanoTime();
                    issuing = issuing && now - end < 0;
                }
                continue;
            }
            now = System.nanoTime();
            final int g = complete(now);
            if (issuing && now - end < 0)
            {
                issue(g, now);
            }
            else
            {
                issuing = false;
                inFlight--;
            }
            if (o.progress() && now - nextProgress >= 0)
            {
                final long ops = reads + writes;
                err.printf(Locale.ROOT, "blocks bench: %.0f s  %.0f IOPS  p99 %.1f us  corrupt %d%n",
                    (now - start) * 1e-9, (ops - lastOps) * 1e9 / (now - lastTime), latency.percentile(0.99) * 1e-3,
                    corrupt);
                lastOps = ops;
                lastTime = now;
                nextProgress = now + 1_000_000_000L;   // after a stall, one line, not one per missed second
            }
        }
        return now - start;
    }

    /** Reads back the blocks the run wrote (or all of them): returns how many were read. */
    private long verifyPass()
    {
        phase = PHASE_VERIFY;
        long done = 0;
        int inFlight = 0;
        for (int g = 0; g < slots; g++)
        {
            if (issueVerify(g))
            {
                inFlight++;
            }
        }
        while (inFlight > 0)
        {
            if (cq.poll(wc) == 0)
            {
                continue;
            }
            final int g = complete(System.nanoTime());
            done++;
            if (!issueVerify(g))
            {
                inFlight--;
            }
        }
        return done;
    }

    /** The slot's next block to read back, if any: posted. */
    private boolean issueVerify(final int g)
    {
        long k = verifyNext[g];
        long b = g + k * slots;
        while (b < blocks && !o.verifyAll() && generation[(int) b] == 0)
        {
            b += slots;
            k++;
        }
        if (b >= blocks)
        {
            verifyNext[g] = k;
            return false;
        }
        verifyNext[g] = k + 1;
        post(g, b, true, System.nanoTime());
        return true;
    }

    /** Timed phase: the slot's next I/O on a random block of its own. */
    private void issue(final int g, final long now)
    {
        final long owned = (blocks - g + slots - 1) / slots;
        final long b = g + (next() >>> 1) % owned * slots;
        final boolean read = (int) ((next() >>> 1) % 100) < o.readPercent();
        if (!read)
        {
            format.fill(local, (long) g * blockSize, views[g], b, epoch, generation[(int) b] + 1);
        }
        post(g, b, read, now);
    }

    private void post(final int g, final long b, final boolean read, final long now)
    {
        final int conn = g / depth;
        final long laddr = local.address() + (long) g * blockSize;
        final long raddr = region.address() + b * blockSize;
        inFlightBlock[g] = b;
        inFlightRead[g] = read;
        busy[g] = true;
        startNanos[g] = now;
        final int flags = SendFlags.SIGNALED | SendFlags.RING;
        final boolean posted = read ? sqs[conn].rdmaRead(g, laddr, mr.lkey(), blockSize, raddr, region.rkey(), flags)
            : sqs[conn].rdmaWrite(g, laddr, mr.lkey(), blockSize, raddr, region.rkey(), flags);
        if (!posted)
        {
            throw new IllegalStateException("send queue of connection " + conn + " full with " + depth
                + " I/Os posted: the QP holds fewer WQEs than asked");
        }
    }

    /** The completion in {@link #wc}: verifies a READ, counts a WRITE; returns the slot. */
    private int complete(final long now)
    {
        if (!wc.isSuccess())
        {
            throw new IllegalStateException("error completion (server gone, or the region smaller than it said?): "
                + wc);
        }
        final int g = (int) wc.wrId();
        if (g < 0 || g >= slots || !busy[g])
        {
            throw new IllegalStateException("completion for no I/O in flight: " + wc);
        }
        busy[g] = false;
        final long b = inFlightBlock[g];
        if (phase == PHASE_RUN)
        {
            latency.record(now - startNanos[g]);
            perConnection[g / depth]++;
        }
        if (!inFlightRead[g])
        {
            generation[(int) b]++;
            writes++;
            return g;
        }
        final int gen = generation[(int) b];
        final int result = format.check(local, (long) g * blockSize, views[g], b, epoch, gen);
        if (phase == PHASE_RUN)
        {
            reads++;
        }
        if (result == BlockFormat.OK || (result == BlockFormat.ZERO && region.zeroed()))
        {
            if (phase == PHASE_VERIFY)
            {
                verified++;
                if (gen == 0)
                {
                    if (result == BlockFormat.ZERO)
                    {
                        verifiedUnwritten++;
                    }
                    else
                    {
                        verifiedEarlierRun++;
                    }
                }
            }
            else if (result == BlockFormat.ZERO)
            {
                readsUnwritten++;
            }
            else if (gen == 0)
            {
                readsEarlierRun++;
            }
            return g;
        }
        if (++corrupt <= MAX_REPORTED)
        {
            err.printf("blocks bench: block %d (offset 0x%x) failed verification: %s (expected generation %d, "
                + "holds block %d generation %d)%s%n", b, b * blockSize, result == BlockFormat.ZERO
                ? "all zero, but the region was not zeroed" : BlockFormat.describe(result), gen,
                BlockFormat.blockOf(local, (long) g * blockSize), BlockFormat.generationOf(local, (long) g * blockSize),
                phase == PHASE_VERIFY ? " in the read-back" : "");
        }
        return g;
    }

    private void report(final long elapsed, final long readBack)
    {
        final double seconds = elapsed * 1e-9;
        final long ops = reads + writes;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (final long n : perConnection)
        {
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        out.printf(Locale.ROOT, "I/Os: %d in %.2f s = %.0f IOPS (%.1f MB/s); %d READs (%d of unwritten blocks, %d "
            + "of an earlier run's), %d WRITEs%n", ops, seconds, ops / seconds, ops * (double) blockSize / seconds
            / 1e6, reads, readsUnwritten, readsEarlierRun, writes);
        out.printf(Locale.ROOT, "latency: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us%n",
            latency.percentile(0.5) * 1e-3, latency.percentile(0.99) * 1e-3, latency.percentile(0.999) * 1e-3,
            latency.max() * 1e-3);
        out.printf(Locale.ROOT, "fairness: per-connection IOPS min %.1f, max %.1f (min/max %.2f)%n", min / seconds,
            max / seconds, max == 0 ? 0.0 : (double) min / max);
        long written = 0;
        for (final int gen : generation)
        {
            if (gen > 0)
            {
                written++;
            }
        }
        out.printf("read-back: %d blocks read (%d written by this run), %d verified (%d unwritten zero, %d of an "
            + "earlier run)%n", readBack, written, verified, verifiedUnwritten, verifiedEarlierRun);
        out.printf("corrupt blocks: %d%n", corrupt);
    }

    /** xorshift64: the slot's next block and the READ/WRITE draw, without allocation. */
    private long next()
    {
        long x = seed;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        seed = x;
        return x;
    }

    private void close()
    {
        final RuntimeException failure = new IllegalStateException("closing the bench's connections");
        if (connections != null)
        {
            for (final CmConnection c : connections)
            {
                if (c != null)
                {
                    try
                    {
                        c.close();
                    }
                    catch (final RuntimeException ex)
                    {
                        failure.addSuppressed(ex);
                    }
                }
            }
        }
        if (channel != null)
        {
            channel.close();
        }
        if (context != null)
        {
            context.close();
        }
        if (arena != null)
        {
            arena.close();
        }
        if (failure.getSuppressed().length > 0)
        {
            err.println("mlx5j: blocks bench: " + failure.getSuppressed()[0].getMessage());
        }
    }
}
