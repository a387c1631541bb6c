// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Post plus poll over many QPs on one CQ, round-robin: per op one signaled RDMA WRITE (1 SGE, the {@link Workload}
 * WQE) on the next QP, rung through that QP's register (BlueFlame; {@code RegisterMode.AUTO}, so the QPs past the
 * low-latency registers take their shared register's lock, as libmlx5 does), its CQE written by the
 * {@link SyntheticCompleter} and consumed by one {@link CqPoller#poll(Completion)}. The C loop's
 * {@code c.IbvManyQpBench.postPoll1} does the same with ibv_post_send and ibv_poll_cq on QPs of the same geometry
 * ({@link EmulatedQps}), so the ratio per {@code qps} shows what the footprint of 1, 64 or 1,024 send rings, doorbell
 * records and queue objects costs each stack. One op = one WQE and its CQE.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class Mlx5jManyQpBench
{
    /** QPs on the one CQ. */
    @Param({"1", "64", "1024"})
    public int qps;

    private EmulatedQps env;
    private SendQueue[] sqs;
    private int[] qpns;
    private int[] uidx;
    /** Per QP, the producer counter in WQEBBs: the wqe_counter of its next WQE (each WRITE is 1 WQEBB). */
    private int[] curPost;
    private CqPoller cq;
    private final Completion one = new Completion();
    private SyntheticCompleter completer;
    private int next;
    private long wrId;
    private int lkey;
    private int rkey;
    private long src;
    private long raddr;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQps.open(qps);
        sqs = new SendQueue[qps];
        qpns = new int[qps];
        uidx = env.uidx.clone();
        curPost = new int[qps];
        cq = CqPoller.of(env.cq);
        for (int i = 0; i < qps; i++)
        {
            sqs[i] = SendQueue.of(env.qps[i], DoorbellMode.BLUEFLAME);
            cq.attach(sqs[i]);
            qpns[i] = env.qps[i].qpn();
        }
        completer = new SyntheticCompleter(env.cq.ring(), qpns[0], uidx[0]);
        lkey = env.mr.lkey();
        rkey = env.mr.rkey();
        src = env.memory().address() + Workload.WRITE_SRC;
        raddr = env.memory().address() + Workload.WRITE_DST;
    }

    /**
     * Closes the QPs when the fork's JVM exits (each qps value runs in a fork of its own). JMH runs the trial
     * tear-down inside the last measurement iteration, and closing 1,024 QPs allocates about 50 KB of control-path
     * garbage per QP: closed here, it showed as 33-66 B/op in that one iteration while every other iteration
     * measured 0.003-0.01 B/op, and with the close left out the last one measured 0.016 B/op. A shutdown hook keeps
     * the close, and keeps it out of the figure that is about the measured ops.
     */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        final EmulatedQps closing = env;
        Runtime.getRuntime().addShutdownHook(new Thread(closing::close, "many-qp-close"));
    }

    /** Post 1 signaled RDMA WRITE on the next QP and ring (BlueFlame), complete it, poll it. */
    @Benchmark
    public int postPoll1()
    {
        final int q = next;
        next = q + 1 == qps ? 0 : q + 1;
        final long id = ++wrId;
        final SendQueue sq = sqs[q];
        if (!sq.rdmaWrite(id, src, lkey, Workload.WRITE_BYTES, raddr, rkey, SendFlags.SIGNALED | SendFlags.RING))
        {
            throw new IllegalStateException("send queue full on QP " + q);
        }
        completer.complete(qpns[q], uidx[q], curPost[q]++, Workload.OPCODE_WRITE);
        final Completion c = one;
        final int got = cq.poll(c);
        if (got != 1 || c.wrId() != id || !c.isSuccess())
        {
            throw new IllegalStateException("CqPoller.poll: expected wr_id " + id + " of QP " + q + ", polled " + got
                + " (" + c + ")");
        }
        return got;
    }
}
