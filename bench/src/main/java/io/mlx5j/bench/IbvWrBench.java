// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import io.mlx5j.bindings.IbvQpEx;
import io.mlx5j.bindings.IbvWc;
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

import static io.mlx5j.bench.Workload.BATCH;

/**
 * libmlx5's {@code ibv_wr_*} API from Java through FFM (the {@code ibv_qp_ex} member pointers, critical downcalls):
 * the same WQEs as {@link IbvPostSendBench}. A single WQE is {@code wr_start}, {@code wr_id}/{@code wr_flags}
 * stores, {@code wr_rdma_write} + {@code wr_set_sge} (or {@code wr_send} + {@code wr_set_inline_data}),
 * {@code wr_complete}: four downcalls; the batch puts 8 WQEs between one start and one complete. One op = one WQE.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvWrBench
{
    private static final int IBV_SEND_SIGNALED = 1 << 1;

    private EmulatedQp env;
    private Arena arena;
    private MemorySegment qpx;
    private MemorySegment wrStart;
    private MemorySegment wrComplete;
    private MemorySegment wrRdmaWrite;
    private MemorySegment wrSend;
    private MemorySegment wrSetSge;
    private MemorySegment wrSetInlineData;
    private MemorySegment cq;
    private MemorySegment pollCq;
    private MemorySegment wc;
    private SyntheticCompleter completer;
    private int curPost;
    private int lkey;
    private int rkey;
    private long src;
    private long raddr;
    private MemorySegment inline;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        arena = Arena.ofConfined();
        qpx = Libmlx5.raw(env.qp.qpEx()).reinterpret(IbvQpEx.LAYOUT.byteSize());
        wrStart = InlineVerbs.wrFn(qpx, IbvQpEx.WR_START_OFFSET);
        wrComplete = InlineVerbs.wrFn(qpx, IbvQpEx.WR_COMPLETE_OFFSET);
        wrRdmaWrite = InlineVerbs.wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_OFFSET);
        wrSend = InlineVerbs.wrFn(qpx, IbvQpEx.WR_SEND_OFFSET);
        wrSetSge = InlineVerbs.wrFn(qpx, IbvQpEx.WR_SET_SGE_OFFSET);
        wrSetInlineData = InlineVerbs.wrFn(qpx, IbvQpEx.WR_SET_INLINE_DATA_OFFSET);
        pollCq = InlineVerbs.pollCqFn(env.cq.pointer());
        cq = Libmlx5.raw(env.cq.pointer());
        wc = arena.allocate(IbvWc.LAYOUT);
        completer = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);
        lkey = env.mr.lkey();
        rkey = env.mr.rkey();
        src = env.memory().address() + Workload.WRITE_SRC;
        raddr = env.memory().address() + Workload.WRITE_DST;
        inline = Libmlx5.raw(env.memory().asSlice(Workload.INLINE_SRC, 64));
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
        arena.close();
    }

    /** RDMA WRITE, one SGE. */
    @Benchmark
    public int rdmaWrite()
    {
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            Libmlx5.wr(wrStart, qpx);
            write(signaled);
            check(Libmlx5.wrComplete(wrComplete, qpx));
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

    /** RDMA WRITEs, 8 between one wr_start and one wr_complete (one doorbell per 8 WQEs). */
    @Benchmark
    public int rdmaWriteBatch8()
    {
        for (int b = 0; b < BATCH; b += Workload.DOORBELL_BATCH)
        {
            Libmlx5.wr(wrStart, qpx);
            for (int i = 1; i <= Workload.DOORBELL_BATCH; i++)
            {
                write(b + i == BATCH);
            }
            check(Libmlx5.wrComplete(wrComplete, qpx));
        }
        return complete(Workload.WRITE_WQEBB, Workload.OPCODE_WRITE);
    }

    private int sendInline(final int bytes, final int wqebb)
    {
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            Libmlx5.wr(wrStart, qpx);
            ids(signaled);
            Libmlx5.wr(wrSend, qpx);
            Libmlx5.wrSetInlineData(wrSetInlineData, qpx, inline, bytes);
            check(Libmlx5.wrComplete(wrComplete, qpx));
        }
        return complete(wqebb, Workload.OPCODE_SEND);
    }

    private void write(final boolean signaled)
    {
        ids(signaled);
        Libmlx5.wrRdma(wrRdmaWrite, qpx, rkey, raddr);
        Libmlx5.wrSetSge(wrSetSge, qpx, lkey, src, Workload.WRITE_BYTES);
    }

    /** {@code qpx->wr_id} and {@code qpx->wr_flags}: plain stores, as the C caller does them. */
    private void ids(final boolean signaled)
    {
        qpx.set(ValueLayout.JAVA_LONG, IbvQpEx.WR_ID_OFFSET,
            signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID);
        qpx.set(ValueLayout.JAVA_INT, IbvQpEx.WR_FLAGS_OFFSET, signaled ? IBV_SEND_SIGNALED : 0);
    }

    private static void check(final int rc)
    {
        if (rc != 0)
        {
            throw new IllegalStateException("ibv_wr_complete failed: " + rc);
        }
    }

    private int complete(final int wqebb, final int opcode)
    {
        curPost += BATCH * wqebb;
        completer.complete(curPost - wqebb, opcode);
        final int n = Libmlx5.pollCq(pollCq, cq, 1, wc);
        final long wrId = wc.get(ValueLayout.JAVA_LONG, IbvWc.WR_ID_OFFSET);
        final int status = wc.get(ValueLayout.JAVA_INT, IbvWc.STATUS_OFFSET);
        if (n != 1 || wrId != Workload.SIGNALED_WR_ID || status != 0)
        {
            throw Workload.badCompletion("ibv_poll_cq", n, wrId, status);
        }
        return n;
    }
}
