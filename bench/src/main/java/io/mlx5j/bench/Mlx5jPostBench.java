// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.RegisterMode;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
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
 * The mlx5j direct send path ({@link SendQueue}, completions through {@link CqPoller}) on the same kind of QP
 * as {@link IbvPostSendBench} and {@link IbvWrBench}, with the same WQEs and the same {@link SyntheticCompleter}.
 * {@code doorbell}: BLUEFLAME copies every single-WQE post through the BlueFlame register (a batch rings the 8-byte
 * doorbell, as libmlx5), DOORBELL always rings the 8-byte doorbell; {@code register}: see {@link #register}. One op
 * = one WQE.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class Mlx5jPostBench
{
    @Param({"BLUEFLAME", "DOORBELL"})
    public String doorbell;

    /**
     * The QP's BlueFlame register: AUTO is what a send queue gets by default (this context's first QP has a
     * low-latency register, so DEDICATED: no lock); LOCKED is a register shared with other QPs, as every QP past
     * the first 4 of a context gets with libmlx5's defaults: each ring takes the register's spin lock and flushes
     * inside it (as libmlx5 does for a medium register, whose cost the C rows pay only from that QP on).
     */
    @Param({"AUTO", "LOCKED"})
    public String register;

    private EmulatedQp env;
    private SendQueue sq;
    private CqPoller cq;
    private final Completion completion = new Completion();
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
        sq = SendQueue.of(env.qp, DoorbellMode.valueOf(doorbell), RegisterMode.valueOf(register));
        cq = CqPoller.of(env.cq).attach(sq);
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
        final SendQueue sq = this.sq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            if (!sq.rdmaWrite(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID, src, lkey,
                Workload.WRITE_BYTES, raddr, rkey, SendFlags.RING | (signaled ? SendFlags.SIGNALED : 0)))
            {
                throw full();
            }
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

    /** RDMA WRITEs, one doorbell ({@code ring()}) per 8 WQEs. */
    @Benchmark
    public int rdmaWriteBatch8()
    {
        final SendQueue sq = this.sq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            if (!sq.rdmaWrite(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID, src, lkey,
                Workload.WRITE_BYTES, raddr, rkey, signaled ? SendFlags.SIGNALED : 0))
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
        final SendQueue sq = this.sq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            if (!sq.send(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID, inline, lkey, bytes,
                SendFlags.INLINE | SendFlags.RING | (signaled ? SendFlags.SIGNALED : 0)))
            {
                throw full();
            }
        }
        return complete(wqebb, Workload.OPCODE_SEND);
    }

    private int complete(final int wqebb, final int opcode)
    {
        curPost += BATCH * wqebb;
        completer.complete(curPost - wqebb, opcode);
        final Completion c = completion;
        final int n = cq.poll(c);
        if (n != 1 || c.wrId() != Workload.SIGNALED_WR_ID || !c.isSuccess())
        {
            throw Workload.badCompletion("CqPoller.poll", n, c.wrId(), c.statusCode());
        }
        return n;
    }

    private static IllegalStateException full()
    {
        return new IllegalStateException("send queue full: the synthetic completer and the ring are out of step");
    }
}
