package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Access;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CompletionQueue;
import io.mlx5j.direct.Context;
import io.mlx5j.direct.DirectCq;
import io.mlx5j.direct.MemoryRegion;
import io.mlx5j.direct.ProtectionDomain;
import io.mlx5j.direct.StridingRecvQueue;
import io.mlx5j.direct.WorkQueue;
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
 * shift) and {@link DirectCq}. The CQEs the device would write are written here (engine off, Ethernet port, as for
 * the other receive rows): frames of 1..4 strides, a filler CQE where a frame does not fit the strides left, so a WQE
 * is released and posted again (doorbell record) about every 13 frames; the frame's address and timestamp are read.
 * One op = one frame. libmlx5 v44 cannot receive on a striding RQ at all (no striding WQE builder, no striding CQE
 * decoder); its per-frame receive, ibv_poll_cq or ibv_start_poll plus one ibv_post_recv per frame, is measured by
 * {@link IbvRawPollCqBench} and {@link IbvRawCqExBench}, and mlx5j's plain raw receive by {@link Mlx5jRawRecvBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector"})
public class StridingRecvBench
{
    private static final int WQES = 16;
    private static final int STRIDES = 32;

    private Context context;
    private Arena arena;
    private final Completion c = new Completion();
    private DirectCq cq;
    private Injector injector;
    private int cursor;
    private int frame;

    @Setup(Level.Trial)
    public void setup()
    {
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
        cq = DirectCq.of(ring).attach(q);
        injector = new Injector(ring);
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
            injector.put(cursor, 0x80000000 | (STRIDES - cursor) << 16);
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

    /** Raw RESP_SEND CQEs of a striding WQ written as the device writes them (body, then op_own with the owner bit). */
    private static final class Injector
    {
        private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private static final ValueLayout.OfShort BE16 =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private final MemorySegment buf;
        private final int cnt;
        private int produced;

        Injector(final CompletionQueue cq)
        {
            this.buf = cq.ring().buf();
            this.cnt = cq.ring().cqeCnt();
        }

        /** @param strideIndex wqe_counter; @param byteCnt length | strides &lt;&lt; 16 | filler &lt;&lt; 31 */
        void put(final int strideIndex, final int byteCnt)
        {
            final long at = (long) (produced & (cnt - 1)) * 64;
            for (int i = 0; i < 64; i += 8)
            {
                buf.set(ValueLayout.JAVA_LONG, at + i, 0L);
            }
            buf.set(ValueLayout.JAVA_BYTE, at + 0x1c, (byte) 7);                 // hds_ip_ext: L2, L3, L4 OK
            buf.set(ValueLayout.JAVA_BYTE, at + 0x1d, (byte) (2 << 4 | 2 << 2)); // UDP over IPv4
            buf.set(BE32, at + 0x2c, byteCnt);
            buf.set(BE64, at + 0x30, 1000L + produced);                         // timestamp
            buf.set(BE32, at + 0x38, 0x77);                                     // flow tag
            buf.set(BE16, at + 0x3c, (short) strideIndex);
            java.lang.invoke.VarHandle.releaseFence();
            buf.set(ValueLayout.JAVA_BYTE, at + 0x3f, (byte) (2 << 4 | ((produced / cnt) & 1)));
            produced++;
        }
    }
}
