// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.WorkQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * mlx5j's striding receive path: a recycling {@link StridingRecvQueue} (16 WQEs of 32 strides of 64 bytes, two-byte
 * shift) and {@link CqPoller}. The CQEs the device would write are written here (engine off, Ethernet port, as for
 * the other receive rows): frames of 1..4 strides, a filler CQE where a frame does not fit the strides left, so a WQE
 * is released and posted again (doorbell record) about every 13 frames; the frame's address and timestamp are read.
 * One op = one frame. The CQEs come from {@link StridingInjector}, as for the libmlx5 counterpart
 * {@link IbvStridingRecvBench} (and the C loop's c.IbvStridingRecvBench.recv1), which does the same work with what
 * libmlx5 v44 offers for a striding WQ: ibv_start_poll/ibv_next_poll and the WQE recycled by hand (see there).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class StridingRecvBench
{
    private static final int WQES = 16;
    private static final int STRIDES = 32;

    private Context context;
    private Arena arena;
    private final Completion c = new Completion();
    private CqPoller cq;
    private StridingInjector injector;
    private int cursor;
    private int frame;

    @Setup(Level.Trial)
    public void setup()
    {
        ForkArgs.requireExport();
        EmulatedQp.requireIdleEmulator();
        context = Context.openFirst();
        if (!context.queryPort(1).isEthernet())
        {
            context.close();
            throw new IllegalStateException("StridingRecvBench needs an Ethernet port: emulator/mlx5emu --link eth");
        }
        arena = Arena.ofShared();
        final ProtectionDomain pd = context.allocPd();
        final MemoryRegion mr = pd.register(arena.allocate(1 << 20, 4096), Access.LOCAL_WRITE);
        final CompletionQueue ring = context.createCq(1023);
        final WorkQueue wq = pd.createWq(WorkQueue.builder(ring).maxWr(WQES).striding(6, 5, true)).ready();
        final StridingRecvQueue q = StridingRecvQueue.of(wq, true);
        for (int i = 0; i < WQES; i++)
        {
            q.post(i, mr.address() + i * (long) q.bufferBytes(), mr.lkey());
        }
        q.ring();
        cq = CqPoller.of(ring).attach(q);
        injector = new StridingInjector(ring, 0); // srqn_uidx: mlx5j does not read it
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        context.close();
        arena.close();
    }

    @Benchmark
    public long recv1()
    {
        final int strides = 1 + (frame++ & 3);
        if (cursor + strides > STRIDES)
        {
            injector.put(cursor, StridingInjector.FILLER | (STRIDES - cursor) << 16);
            cursor = 0;
        }
        injector.put(cursor, (strides * 64 - 2) | strides << 16);
        if (cq.poll(c) != 1 || c.strideIndex() != cursor)
        {
            throw new IllegalStateException("striding completion: " + c);
        }
        cursor += strides;
        if (cursor == STRIDES)
        {
            cursor = 0;
        }
        return c.frameAddress() + c.timestamp();
    }
}
