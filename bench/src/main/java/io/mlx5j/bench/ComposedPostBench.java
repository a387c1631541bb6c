// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.wqe.WcStatus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import static io.mlx5j.bench.Workload.BATCH;

/**
 * {@link Mlx5jPostBench} on the mlx5j parts alone ({@link ComposedSendQueue}: SendRing + WqeWriter + SendDoorbell;
 * {@link ComposedCq}: CqeView + SendRing.complete + CqDoorbell), without SendQueue's general staging layer:
 * the difference between the two is what that layer costs. Same QP, WQEs, completer. One op = one WQE.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class ComposedPostBench
{
    @Param({"BLUEFLAME"})
    public String doorbell;

    private EmulatedQp env;
    private ComposedSendQueue sq;
    private ComposedCq cq;
    private SyntheticCompleter completer;
    private int curPost;
    private int lkey;
    private int rkey;
    private long src;
    private long raddr;
    private long inline;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        sq = new ComposedSendQueue(env.qp.rings(), DoorbellMode.valueOf(doorbell));
        cq = new ComposedCq(env.cq.ring(), sq.sendQueue(), env.qp.qpn());
        completer = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);
        lkey = env.mr.lkey();
        rkey = env.mr.rkey();
        src = env.memory().address() + Workload.WRITE_SRC;
        raddr = env.memory().address() + Workload.WRITE_DST;
        inline = env.memory().address() + Workload.INLINE_SRC;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
    }

    /** RDMA WRITE, one SGE, one doorbell per WQE. */
    @Benchmark
    public int rdmaWrite()
    {
        final ComposedSendQueue sq = this.sq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            if (!sq.rdmaWrite(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID, src, lkey,
                Workload.WRITE_BYTES, raddr, rkey, signaled ? ComposedSendQueue.SIGNALED : 0))
            {
                throw full();
            }
            sq.ring();
        }
        return complete(Workload.WRITE_WQEBB, Workload.OPCODE_WRITE);
    }

    /** SEND with 16 bytes inline. */
    @Benchmark
    public int sendInline16()
    {
        return sendInline(16, Workload.INLINE16_WQEBB);
    }

    /** SEND with 64 bytes inline. */
    @Benchmark
    public int sendInline64()
    {
        return sendInline(64, Workload.INLINE64_WQEBB);
    }

    /** RDMA WRITEs, one doorbell per 8 WQEs. */
    @Benchmark
    public int rdmaWriteBatch8()
    {
        final ComposedSendQueue sq = this.sq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            if (!sq.rdmaWrite(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID, src, lkey,
                Workload.WRITE_BYTES, raddr, rkey, signaled ? ComposedSendQueue.SIGNALED : 0))
            {
                throw full();
            }
            if ((i & (Workload.DOORBELL_BATCH - 1)) == 0)
            {
                sq.ring();
            }
        }
        return complete(Workload.WRITE_WQEBB, Workload.OPCODE_WRITE);
    }

    private int sendInline(final int bytes, final int wqebb)
    {
        final ComposedSendQueue sq = this.sq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            if (!sq.send(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID, inline, lkey, bytes,
                ComposedSendQueue.INLINE | (signaled ? ComposedSendQueue.SIGNALED : 0)))
            {
                throw full();
            }
            sq.ring();
        }
        return complete(wqebb, Workload.OPCODE_SEND);
    }

    private int complete(final int wqebb, final int opcode)
    {
        curPost += BATCH * wqebb;
        completer.complete(curPost - wqebb, opcode);
        final int n = cq.poll(1);
        final long wrId = cq.wrId();
        if (n != 1 || wrId != Workload.SIGNALED_WR_ID || cq.status() != WcStatus.SUCCESS)
        {
            throw Workload.badCompletion("mlx5j poll", n, wrId, cq.status() == null ? -1 : cq.status().ordinal());
        }
        return n;
    }

    private static IllegalStateException full()
    {
        return new IllegalStateException("send queue full: the synthetic completer and the ring are out of step");
    }
}
