// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.Completions;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.wqe.Mlx5Opcode;
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
 * mlx5j polling requester completions ({@link CqPoller}): the {@link SyntheticCompleter} writes 1 or 16 CQEs, one
 * poll call ({@code poll(Completion)}, resp. {@code poll(Completions, 16)}) consumes them. One op = one CQE.
 * <p>
 * mlx5j retires the send WQE each CQE names and refuses a CQE that names no outstanding WQE (libmlx5 does not
 * check), so every CQE needs a WQE posted for it. Two pairs of rows:
 * <ul>
 * <li>{@link #postPoll1}, {@link #postPoll16} (like for like with {@link IbvPollCqBench#postPoll1}/{@code 16} and
 *     the C loop's rows of the same names): per poll call, post 1 or 16 signaled RDMA WRITEs (1 SGE, the
 *     {@link Workload} WQE) and ring once (BlueFlame for 1, the 8-byte doorbell for 16, as libmlx5's list post),
 *     then the completer writes their CQEs and one poll call consumes them. Both stacks do exactly this work.</li>
 * <li>{@link #poll1}, {@link #poll16} (kept, NOT like for like): before each CQE, one signaled ctrl-only NOP WQE
 *     without a doorbell, inside the measured time: poll + a minimal post. libmlx5's rows of the same names complete
 *     WQEs posted once in setup, so they are poll only.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class Mlx5jPollBench
{
    private EmulatedQp env;
    private SendQueue sq;
    private CqPoller cq;
    private final Completion one = new Completion();
    private final Completions batch = new Completions(16);
    private SyntheticCompleter completer;
    private int curPost;
    private long wrId;
    private int lkey;
    private int rkey;
    private long src;
    private long raddr;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        // the NOP rows never ring; the postPoll rows ring as libmlx5 does (BlueFlame for a single WQE)
        sq = SendQueue.of(env.qp, DoorbellMode.BLUEFLAME);
        cq = CqPoller.of(env.cq).attach(sq);
        completer = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);
        lkey = env.mr.lkey();
        rkey = env.mr.rkey();
        src = env.memory().address() + Workload.WRITE_SRC;
        raddr = env.memory().address() + Workload.WRITE_DST;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
    }

    @Benchmark
    public int poll1()
    {
        repost(1);
        final int got = cq.poll(one);
        check(got, 1, one);
        return got;
    }

    @Benchmark
    @OperationsPerInvocation(16)
    public int poll16()
    {
        repost(16);
        final int got = cq.poll(batch, 16);
        check(got, 16, batch.get(15));
        return got;
    }

    /** Like for like: post 1 signaled RDMA WRITE and ring (BlueFlame), complete it, poll it. */
    @Benchmark
    public int postPoll1()
    {
        postWrites(1);
        final int got = cq.poll(one);
        check(got, 1, one);
        return got;
    }

    /** Like for like: post 16 signaled RDMA WRITEs, ring once (8-byte doorbell), complete them, one poll call. */
    @Benchmark
    @OperationsPerInvocation(16)
    public int postPoll16()
    {
        postWrites(16);
        final int got = cq.poll(batch, 16);
        check(got, 16, batch.get(15));
        return got;
    }

    private void postWrites(final int n)
    {
        final SendQueue sq = this.sq;
        for (int i = 0; i < n; i++)
        {
            if (!sq.rdmaWrite(++wrId, src, lkey, Workload.WRITE_BYTES, raddr, rkey, SendFlags.SIGNALED))
            {
                throw new IllegalStateException("send queue full");
            }
        }
        sq.ring();
        for (int i = 0; i < n; i++)
        {
            completer.complete(curPost++, Workload.OPCODE_WRITE); // 1 WQEBB each: wqe_counter = index
        }
    }

    private void repost(final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final long id = ++wrId;
            if (!sq.nop(id, SendFlags.SIGNALED))
            {
                throw new IllegalStateException("send queue full");
            }
            completer.complete(curPost, Mlx5Opcode.MLX5_OPCODE_NOP);
            curPost++;
        }
    }

    private void check(final int got, final int n, final Completion last)
    {
        if (got != n || last.wrId() != wrId || !last.isSuccess())
        {
            throw new IllegalStateException("CqPoller.poll: expected " + n + " completions ending with wr_id " + wrId
                + ", got " + got + " ending with " + last);
        }
    }
}
