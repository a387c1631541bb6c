// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.bindings.IbvSge;
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
 * libmlx5 {@code ibv_post_send} from Java through FFM (the provider's post_send pointer, critical downcall), with
 * {@code ibv_send_wr} lists pre-built in native memory: the same WQEs as {@link Mlx5jPostBench}, on the same kind of
 * QP ({@link EmulatedQp}). libmlx5 picks the doorbell itself (rdma-core v44 post_send_db, default environment):
 * BlueFlame for a single WQE of more than one 16-byte unit, the 8-byte doorbell for a list. Completions: the
 * {@link SyntheticCompleter} writes the CQE, {@code ibv_poll_cq} (FFM) consumes it. One op = one WQE.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvPostSendBench
{
    private EmulatedQp env;
    private Arena arena;
    private MemorySegment qp;
    private MemorySegment postSend;
    private MemorySegment cq;
    private MemorySegment pollCq;
    private MemorySegment wc;
    private MemorySegment badWr;
    private SyntheticCompleter completer;
    /** Mirror of libmlx5's sq.cur_post (WQEBBs posted): the signaled WQE's wqe_counter comes from it. */
    private int curPost;

    private MemorySegment writeUnsignaled;
    private MemorySegment writeSignaled;
    private MemorySegment inline16Unsignaled;
    private MemorySegment inline16Signaled;
    private MemorySegment inline64Unsignaled;
    private MemorySegment inline64Signaled;
    private MemorySegment batchUnsignaled;
    private MemorySegment batchSignaled;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        arena = Arena.ofConfined();
        postSend = InlineVerbs.postSendFn(env.qp.pointer());
        pollCq = InlineVerbs.pollCqFn(env.cq.pointer());
        qp = Libmlx5.raw(env.qp.pointer());
        cq = Libmlx5.raw(env.cq.pointer());
        wc = arena.allocate(IbvWc.LAYOUT);
        badWr = arena.allocate(ValueLayout.ADDRESS);
        completer = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);

        final long base = env.memory().address();
        final int lkey = env.mr.lkey();
        final int rkey = env.mr.rkey();
        final MemorySegment writeSge = sge(base + Workload.WRITE_SRC, Workload.WRITE_BYTES, lkey);
        final MemorySegment inline16Sge = sge(base + Workload.INLINE_SRC, 16, lkey);
        final MemorySegment inline64Sge = sge(base + Workload.INLINE_SRC, 64, lkey);
        final long raddr = base + Workload.WRITE_DST;
        writeUnsignaled = wrList(1, IbvSendWr.IBV_WR_RDMA_WRITE, writeSge, 0, raddr, rkey, false);
        writeSignaled = wrList(1, IbvSendWr.IBV_WR_RDMA_WRITE, writeSge, 0, raddr, rkey, true);
        inline16Unsignaled = wrList(1, IbvSendWr.IBV_WR_SEND, inline16Sge, IbvSendWr.IBV_SEND_INLINE, 0, 0, false);
        inline16Signaled = wrList(1, IbvSendWr.IBV_WR_SEND, inline16Sge, IbvSendWr.IBV_SEND_INLINE, 0, 0, true);
        inline64Unsignaled = wrList(1, IbvSendWr.IBV_WR_SEND, inline64Sge, IbvSendWr.IBV_SEND_INLINE, 0, 0, false);
        inline64Signaled = wrList(1, IbvSendWr.IBV_WR_SEND, inline64Sge, IbvSendWr.IBV_SEND_INLINE, 0, 0, true);
        batchUnsignaled = wrList(Workload.DOORBELL_BATCH, IbvSendWr.IBV_WR_RDMA_WRITE, writeSge, 0, raddr, rkey, false);
        batchSignaled = wrList(Workload.DOORBELL_BATCH, IbvSendWr.IBV_WR_RDMA_WRITE, writeSge, 0, raddr, rkey, true);
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
        return cycle(writeUnsignaled, writeSignaled, 1, Workload.WRITE_WQEBB, Workload.OPCODE_WRITE);
    }

    /** SEND with 16 bytes inline. */
    @Benchmark
    public int sendInline16()
    {
        return cycle(inline16Unsignaled, inline16Signaled, 1, Workload.INLINE16_WQEBB, Workload.OPCODE_SEND);
    }

    /** SEND with 64 bytes inline. */
    @Benchmark
    public int sendInline64()
    {
        return cycle(inline64Unsignaled, inline64Signaled, 1, Workload.INLINE64_WQEBB, Workload.OPCODE_SEND);
    }

    /** RDMA WRITEs, a list of 8 per ibv_post_send (one doorbell per 8 WQEs). */
    @Benchmark
    public int rdmaWriteBatch8()
    {
        return cycle(batchUnsignaled, batchSignaled, Workload.DOORBELL_BATCH, Workload.WRITE_WQEBB,
            Workload.OPCODE_WRITE);
    }

    private int cycle(final MemorySegment unsignaled, final MemorySegment signaled, final int perPost,
        final int wqebb, final int opcode)
    {
        final int posts = BATCH / perPost;
        for (int i = 1; i < posts; i++)
        {
            if (Libmlx5.postSend(postSend, qp, unsignaled, badWr) != 0)
            {
                throw new IllegalStateException("ibv_post_send failed");
            }
        }
        if (Libmlx5.postSend(postSend, qp, signaled, badWr) != 0)
        {
            throw new IllegalStateException("ibv_post_send failed");
        }
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

    private MemorySegment sge(final long addr, final int length, final int lkey)
    {
        final MemorySegment sge = arena.allocate(IbvSge.LAYOUT);
        sge.set(ValueLayout.JAVA_LONG, IbvSge.ADDR_OFFSET, addr);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LENGTH_OFFSET, length);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LKEY_OFFSET, lkey);
        return sge;
    }

    /** {@code n} WRs linked through {@code next}; only the last may be signaled. */
    private MemorySegment wrList(final int n, final int opcode, final MemorySegment sge, final int flags,
        final long raddr, final int rkey, final boolean signalLast)
    {
        final long size = IbvSendWr.LAYOUT.byteSize();
        final MemorySegment list = arena.allocate(IbvSendWr.LAYOUT, n);
        for (int i = 0; i < n; i++)
        {
            final MemorySegment wr = list.asSlice(i * size, size);
            final boolean signaled = signalLast && i == n - 1;
            wr.set(ValueLayout.JAVA_LONG, IbvSendWr.WR_ID_OFFSET,
                signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID);
            wr.set(ValueLayout.ADDRESS, IbvSendWr.NEXT_OFFSET,
                i == n - 1 ? MemorySegment.NULL : list.asSlice((i + 1) * size, size));
            wr.set(ValueLayout.ADDRESS, IbvSendWr.SG_LIST_OFFSET, sge);
            wr.set(ValueLayout.JAVA_INT, IbvSendWr.NUM_SGE_OFFSET, 1);
            wr.set(ValueLayout.JAVA_INT, IbvSendWr.OPCODE_OFFSET, opcode);
            wr.set(ValueLayout.JAVA_INT, IbvSendWr.SEND_FLAGS_OFFSET,
                flags | (signaled ? IbvSendWr.IBV_SEND_SIGNALED : 0));
            wr.set(ValueLayout.JAVA_LONG, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET, raddr);
            wr.set(ValueLayout.JAVA_INT, IbvSendWr.RDMA_RKEY_OFFSET, rkey);
        }
        return list;
    }
}
