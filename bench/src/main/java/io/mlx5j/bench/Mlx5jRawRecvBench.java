// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.Completions;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.raw.NicClock;
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

/**
 * mlx5j's raw receive path on {@link EmulatedRawQp}: the {@link RawRecvCompleter} writes 1 or 16 raw receive CQEs,
 * {@link CqPoller} decodes them (wr_id, length, checksum-OK, L3/L4 types, flow tag, VLAN, RSS hash, timestamp, the
 * frame's address), and each buffer goes back to the {@link RecvQueue}, rung once per poll call (the doorbell
 * record; a receive queue has no MMIO doorbell). {@code recv1Ts} also converts each CQE's timestamp to nanoseconds
 * since the epoch with {@link NicClock} (mlx5dv_ts_to_ns's arithmetic over the clock-info page). One op = one frame.
 * Counterparts: {@link IbvRawPollCqBench} (ibv_poll_cq + ibv_post_recv), {@link IbvRawCqExBench} (ibv_start_poll /
 * ibv_next_poll, ibv_wc_read_completion_ts or _wallclock_ns, + ibv_post_recv) and the C loop's rows of those names.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class Mlx5jRawRecvBench
{
    private EmulatedRawQp env;
    private RecvQueue rq;
    private CqPoller cq;
    private NicClock clock;
    private final Completion one = new Completion();
    private final Completions batch = new Completions(16);
    private RawRecvCompleter completer;
    private int lkey;
    /** The receive WQE the next frame lands in: buffers are posted, and come back, in slot order. */
    private int next;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedRawQp.open(0);
        rq = RecvQueue.of(env.qp);
        cq = CqPoller.of(env.recvCq).attach(rq);
        clock = NicClock.of(env.context);
        lkey = env.mr.lkey();
        env.postAllReceives(rq);
        completer = new RawRecvCompleter(env.recvCq.ring(), env.uidx, 1L << 40);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        clock.close();
        env.close();
    }

    /** One frame per poll call. */
    @Benchmark
    public long recv1()
    {
        return receive1().timestamp();
    }

    /** One frame per poll call, its timestamp converted to nanoseconds since the epoch. */
    @Benchmark
    public long recv1Ts()
    {
        return clock.toNanos(receive1().timestamp());
    }

    /** 16 frames per poll call. */
    @Benchmark
    @OperationsPerInvocation(16)
    public long recv16()
    {
        int slot = next;
        for (int i = 0; i < 16; i++)
        {
            completer.complete(slot + i, RawWorkload.FRAME);
        }
        final int got = cq.poll(batch, 16);
        if (got != 16)
        {
            throw new IllegalStateException("CqPoller.poll: expected 16 receive completions, got " + got);
        }
        long sum = 0;
        for (int i = 0; i < 16; i++)
        {
            final Completion c = batch.get(i);
            check(c, slot);
            sum += c.timestamp();
            repost(c);
            slot = (slot + 1) & (EmulatedRawQp.MAX_WR - 1);
        }
        rq.ring();
        next = slot;
        return sum;
    }

    private Completion receive1()
    {
        final int slot = next;
        completer.complete(slot, RawWorkload.FRAME);
        final Completion c = one;
        if (cq.poll(c) != 1)
        {
            throw new IllegalStateException("CqPoller.poll: no receive completion");
        }
        check(c, slot);
        repost(c);
        rq.ring();
        next = (slot + 1) & (EmulatedRawQp.MAX_WR - 1);
        return c;
    }

    private void repost(final Completion c)
    {
        if (!rq.post(c.wrId(), c.frameAddress(), lkey, RawWorkload.RECV_BUF))
        {
            throw new IllegalStateException("receive queue full: the completer and the ring are out of step");
        }
    }

    private static void check(final Completion c, final int slot)
    {
        if (c.wrId() != slot || !c.isSuccess() || c.byteLen() != RawWorkload.FRAME || !c.ipCsumOk())
        {
            throw new IllegalStateException("CqPoller.poll: expected the " + RawWorkload.FRAME + "-byte frame of " +
                "receive " + slot + " with good checksums, got " + c);
        }
    }
}
