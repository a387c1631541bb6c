// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import io.mlx5j.bindings.IbvCqEx;
import io.mlx5j.bindings.IbvCqInitAttrEx;
import io.mlx5j.bindings.IbvPollCqAttr;
import io.mlx5j.bindings.InlineVerbs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * libmlx5's extended-CQ receive path from Java through FFM: the receive CQ is an {@code ibv_cq_ex}
 * ({@code ibv_create_cq_ex} with IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, plus
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK for {@code recv1Wallclock} only: with it, libmlx5's start_poll
 * reads the clock-info page on every call, mlx5_start_poll's clock_update). Per frame: {@code ibv_start_poll} (or
 * {@code ibv_next_poll} inside a batch), wr_id and status from the {@code ibv_cq_ex}, {@code ibv_wc_read_byte_len},
 * {@code ibv_wc_read_wc_flags}, {@code ibv_wc_read_completion_ts} (raw ticks; or
 * {@code ibv_wc_read_completion_wallclock_ns}, mlx5dv_ts_to_ns on the clock info start_poll read: the counterpart
 * of {@link Mlx5jRawRecvBench#recv1Ts}), then {@code ibv_end_poll} and {@code ibv_post_recv}, as in
 * {@link IbvRawPollCqBench}. One op = one frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvRawCqExBench
{
    private static final long TS = IbvCqInitAttrEx.IBV_WC_STANDARD_FLAGS |
        IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
    private static final int ENOENT = 2;

    private EmulatedRawQp env;
    private Arena arena;
    private MemorySegment cqx;
    private MemorySegment attr;
    private MemorySegment startPoll;
    private MemorySegment nextPoll;
    private MemorySegment endPoll;
    private MemorySegment readByteLen;
    private MemorySegment readWcFlags;
    private MemorySegment readTs;
    private MemorySegment readWallclock;
    private IbvRecvWrs wrs;
    private RawRecvCompleter completer;
    private int next;

    @Setup(Level.Trial)
    public void setup(final BenchmarkParams params)
    {
        final boolean wallclock = params.getBenchmark().endsWith("Wallclock");
        env = EmulatedRawQp.open(wallclock ? TS | IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK : TS);
        arena = Arena.ofConfined();
        cqx = Libmlx5.raw(env.recvCq.pointer()).reinterpret(IbvCqEx.LAYOUT.byteSize());
        attr = Libmlx5.raw(arena.allocate(IbvPollCqAttr.LAYOUT));
        startPoll = InlineVerbs.cqFn(cqx, IbvCqEx.START_POLL_OFFSET);
        nextPoll = InlineVerbs.cqFn(cqx, IbvCqEx.NEXT_POLL_OFFSET);
        endPoll = InlineVerbs.cqFn(cqx, IbvCqEx.END_POLL_OFFSET);
        readByteLen = InlineVerbs.cqFn(cqx, IbvCqEx.READ_BYTE_LEN_OFFSET);
        readWcFlags = InlineVerbs.cqFn(cqx, IbvCqEx.READ_WC_FLAGS_OFFSET);
        readTs = InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_TS_OFFSET);
        readWallclock = InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_WALLCLOCK_NS_OFFSET);
        wrs = new IbvRecvWrs(env, arena);
        completer = new RawRecvCompleter(env.recvCq.ring(), env.uidx, 1L << 40);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
        arena.close();
    }

    /** One frame per start_poll, its raw timestamp. */
    @Benchmark
    public long recv1Ts()
    {
        return receive1(readTs);
    }

    /** One frame per start_poll, its timestamp in nanoseconds since the epoch. */
    @Benchmark
    public long recv1Wallclock()
    {
        return receive1(readWallclock);
    }

    /** 16 frames: start_poll, 15 next_poll, one end_poll; one ibv_post_recv of 16 buffers. */
    @Benchmark
    @OperationsPerInvocation(16)
    public long recv16Ts()
    {
        final int first = next;
        for (int i = 0; i < 16; i++)
        {
            completer.complete(first + i, RawWorkload.FRAME);
        }
        int rc = RawLibmlx5.startPoll(startPoll, cqx, attr);
        long sum = 0;
        for (int i = 0; ; i++)
        {
            if (rc != 0)
            {
                throw new IllegalStateException("ibv_start_poll/ibv_next_poll: " + rc + " at frame " + i + " of 16");
            }
            sum += read(first + i, readTs);
            if (i == 15)
            {
                break;
            }
            rc = RawLibmlx5.cqInt(nextPoll, cqx);
        }
        RawLibmlx5.endPoll(endPoll, cqx);
        wrs.group(first);
        next = (first + 16) & (EmulatedRawQp.MAX_WR - 1);
        return sum;
    }

    private long receive1(final MemorySegment readStamp)
    {
        final int slot = next;
        completer.complete(slot, RawWorkload.FRAME);
        final int rc = RawLibmlx5.startPoll(startPoll, cqx, attr);
        if (rc != 0)
        {
            throw new IllegalStateException("ibv_start_poll: " + (rc == ENOENT ? "empty" : rc));
        }
        final long stamp = read(slot, readStamp);
        RawLibmlx5.endPoll(endPoll, cqx);
        wrs.single(slot);
        next = (slot + 1) & (EmulatedRawQp.MAX_WR - 1);
        return stamp;
    }

    /** The current completion's fields; checks them, returns its stamp. */
    private long read(final int slot, final MemorySegment readStamp)
    {
        final long wrId = cqx.get(ValueLayout.JAVA_LONG, IbvCqEx.WR_ID_OFFSET);
        final int status = cqx.get(ValueLayout.JAVA_INT, IbvCqEx.STATUS_OFFSET);
        final int len = RawLibmlx5.cqInt(readByteLen, cqx);
        final int flags = RawLibmlx5.cqInt(readWcFlags, cqx);
        final long stamp = RawLibmlx5.cqLong(readStamp, cqx);
        if (wrId != slot || status != 0 || len != RawWorkload.FRAME ||
            (flags & IbvRawPollCqBench.IBV_WC_IP_CSUM_OK) == 0)
        {
            throw new IllegalStateException("ibv_start_poll: expected the " + RawWorkload.FRAME + "-byte frame of " +
                "receive " + slot + " with IBV_WC_IP_CSUM_OK, got wr_id " + wrId + " status " + status +
                " byte_len " + len + " wc_flags 0x" + Integer.toHexString(flags));
        }
        return stamp;
    }
}
