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
import io.mlx5j.wqe.UdpHeaderTemplate;
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
 * libmlx5 {@code ibv_post_send} on a raw packet QP from Java through FFM (the provider's post_send pointer,
 * critical downcall): the {@link RawWorkload} frame as an {@code ibv_send_wr} with a two-entry sg_list (header,
 * payload) and IBV_SEND_IP_CSUM, plus IBV_SEND_INLINE for the inline form, pre-built in native memory. Same QP
 * ({@link EmulatedRawQp}), same completer and poll as {@link Mlx5jRawSendBench}. One op = one frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvRawPostSendBench
{
    private EmulatedRawQp env;
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
    private int sgeWqebb;
    private int inlineWqebb;

    private MemorySegment sgeUnsignaled;
    private MemorySegment sgeSignaled;
    private MemorySegment inlineUnsignaled;
    private MemorySegment inlineSignaled;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedRawQp.open(0);
        arena = Arena.ofConfined();
        postSend = InlineVerbs.postSendFn(env.qp.pointer());
        pollCq = InlineVerbs.pollCqFn(env.sendCq.pointer());
        qp = Libmlx5.raw(env.qp.pointer());
        cq = Libmlx5.raw(env.sendCq.pointer());
        wc = arena.allocate(IbvWc.LAYOUT);
        badWr = arena.allocate(ValueLayout.ADDRESS);
        completer = new SyntheticCompleter(env.sendCq.ring(), env.qp.qpn(), env.uidx);
        sgeWqebb = RawWorkload.libmlx5Wqebb(env.minInline, false);
        inlineWqebb = RawWorkload.libmlx5Wqebb(env.minInline, true);

        final MemorySegment sgl = arena.allocate(IbvSge.LAYOUT, 2);
        sge(sgl, 0, env.headerAddress(), UdpHeaderTemplate.LENGTH);
        sge(sgl, 1, env.payload(), RawWorkload.PAYLOAD);
        sgeUnsignaled = wr(sgl, 0, false);
        sgeSignaled = wr(sgl, 0, true);
        inlineUnsignaled = wr(sgl, IbvSendWr.IBV_SEND_INLINE, false);
        inlineSignaled = wr(sgl, IbvSendWr.IBV_SEND_INLINE, true);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
        arena.close();
    }

    /** The frame as two gather entries (libmlx5 inlines its minimum header, the rest by data segments). */
    @Benchmark
    public int udpSge()
    {
        return cycle(sgeUnsignaled, sgeSignaled, sgeWqebb);
    }

    /** The frame inline. */
    @Benchmark
    public int udpInline()
    {
        return cycle(inlineUnsignaled, inlineSignaled, inlineWqebb);
    }

    private int cycle(final MemorySegment unsignaled, final MemorySegment signaled, final int wqebb)
    {
        for (int i = 1; i < BATCH; i++)
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
        completer.complete(curPost - wqebb, Workload.OPCODE_SEND);
        final int n = Libmlx5.pollCq(pollCq, cq, 1, wc);
        final long wrId = wc.get(ValueLayout.JAVA_LONG, IbvWc.WR_ID_OFFSET);
        final int status = wc.get(ValueLayout.JAVA_INT, IbvWc.STATUS_OFFSET);
        if (n != 1 || wrId != Workload.SIGNALED_WR_ID || status != 0)
        {
            throw Workload.badCompletion("ibv_poll_cq (raw QP; libmlx5 wrote " + wqebb + " WQEBBs per frame?)", n,
                wrId, status);
        }
        return n;
    }

    private void sge(final MemorySegment sgl, final int i, final long addr, final int length)
    {
        final long at = i * IbvSge.LAYOUT.byteSize();
        sgl.set(ValueLayout.JAVA_LONG, at + IbvSge.ADDR_OFFSET, addr);
        sgl.set(ValueLayout.JAVA_INT, at + IbvSge.LENGTH_OFFSET, length);
        sgl.set(ValueLayout.JAVA_INT, at + IbvSge.LKEY_OFFSET, env.mr.lkey());
    }

    private MemorySegment wr(final MemorySegment sgl, final int flags, final boolean signaled)
    {
        final MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT);
        wr.set(ValueLayout.JAVA_LONG, IbvSendWr.WR_ID_OFFSET,
            signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID);
        wr.set(ValueLayout.ADDRESS, IbvSendWr.NEXT_OFFSET, MemorySegment.NULL);
        wr.set(ValueLayout.ADDRESS, IbvSendWr.SG_LIST_OFFSET, sgl);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.NUM_SGE_OFFSET, 2);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.OPCODE_OFFSET, IbvSendWr.IBV_WR_SEND);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.SEND_FLAGS_OFFSET,
            flags | IbvSendWr.IBV_SEND_IP_CSUM | (signaled ? IbvSendWr.IBV_SEND_SIGNALED : 0));
        return wr;
    }
}
