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

/**
 * libmlx5 {@code ibv_poll_cq} from Java through FFM (the provider's poll_cq pointer, critical downcall): the
 * {@link SyntheticCompleter} writes 1 or 16 CQEs, one call consumes them. One op = one CQE.
 * <p>
 * Setup posts {@link #POSTED} signaled RDMA WRITEs (wr_id = their index) and never posts again; the CQEs name them
 * round-robin. libmlx5 looks each one up ({@code wrid[wqe_counter]}, {@code wqe_head}) exactly as for a fresh WQE
 * and does not check that it is still outstanding, so no re-post is needed: {@link #poll1}, {@link #poll16} are
 * poll only (the mlx5j rows of the same names also post a NOP per CQE: not like for like, see
 * {@link Mlx5jPollBench}).
 * <p>
 * {@link #postPoll1}, {@link #postPoll16} are the like-for-like rows: per poll call, one {@code ibv_post_send} of a
 * list of 1 or 16 signaled RDMA WRITEs (pre-built in native memory; libmlx5 rings BlueFlame for the single WQE, the
 * 8-byte doorbell for the list), then the completer writes their CQEs and one {@code ibv_poll_cq} consumes them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvPollCqBench
{
    /** WQEs posted once; a power of two (the CQE's wqe_counter cycles through them). */
    static final int POSTED = 128;

    private EmulatedQp env;
    private Arena arena;
    private MemorySegment cq;
    private MemorySegment pollCq;
    private MemorySegment wc;
    private SyntheticCompleter completer;
    private int next;
    private MemorySegment postSend;
    private MemorySegment qp;
    private MemorySegment chain;
    private MemorySegment single;
    private MemorySegment bad;
    private int sqIndex = POSTED;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        arena = Arena.ofConfined();
        pollCq = InlineVerbs.pollCqFn(env.cq.pointer());
        cq = Libmlx5.raw(env.cq.pointer());
        wc = arena.allocate(IbvWc.LAYOUT, 16);
        completer = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);

        postSend = InlineVerbs.postSendFn(env.qp.pointer());
        qp = Libmlx5.raw(env.qp.pointer());
        final MemorySegment sge = arena.allocate(IbvSge.LAYOUT);
        sge.set(ValueLayout.JAVA_LONG, IbvSge.ADDR_OFFSET, env.memory().address() + Workload.WRITE_SRC);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LENGTH_OFFSET, Workload.WRITE_BYTES);
        sge.set(ValueLayout.JAVA_INT, IbvSge.LKEY_OFFSET, env.mr.lkey());
        final MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT);
        wr.set(ValueLayout.ADDRESS, IbvSendWr.SG_LIST_OFFSET, sge);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.NUM_SGE_OFFSET, 1);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.OPCODE_OFFSET, IbvSendWr.IBV_WR_RDMA_WRITE);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.SEND_FLAGS_OFFSET, IbvSendWr.IBV_SEND_SIGNALED);
        wr.set(ValueLayout.JAVA_LONG, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET, env.memory().address() + Workload.WRITE_DST);
        wr.set(ValueLayout.JAVA_INT, IbvSendWr.RDMA_RKEY_OFFSET, env.mr.rkey());
        bad = arena.allocate(ValueLayout.ADDRESS);
        for (int i = 0; i < POSTED; i++)
        {
            wr.set(ValueLayout.JAVA_LONG, IbvSendWr.WR_ID_OFFSET, i);
            if (Libmlx5.postSend(postSend, qp, wr, bad) != 0)
            {
                throw new IllegalStateException("ibv_post_send of WQE " + i + " failed");
            }
        }
        // postPoll: 16 copies of the signaled WRITE chained; the last alone is the list of one (its next is NULL)
        final long size = IbvSendWr.LAYOUT.byteSize();
        chain = arena.allocate(IbvSendWr.LAYOUT, 16);
        for (int i = 0; i < 16; i++)
        {
            final MemorySegment w = chain.asSlice(i * size, size);
            w.copyFrom(wr);
            w.set(ValueLayout.JAVA_LONG, IbvSendWr.WR_ID_OFFSET, i);
            w.set(ValueLayout.ADDRESS, IbvSendWr.NEXT_OFFSET, i == 15 ? MemorySegment.NULL
                : chain.asSlice((i + 1) * size, size));
        }
        single = chain.asSlice(15 * size, size);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
        arena.close();
    }

    @Benchmark
    public int poll1()
    {
        return cycle(1);
    }

    @Benchmark
    @OperationsPerInvocation(16)
    public int poll16()
    {
        return cycle(16);
    }

    /** Like for like with {@link Mlx5jPollBench#postPoll1}: post 1 signaled RDMA WRITE, complete it, poll it. */
    @Benchmark
    public int postPoll1()
    {
        return postCycle(single, 1);
    }

    /** Like for like with {@link Mlx5jPollBench#postPoll16}: post a list of 16, complete them, one poll call. */
    @Benchmark
    @OperationsPerInvocation(16)
    public int postPoll16()
    {
        return postCycle(chain, 16);
    }

    private int postCycle(final MemorySegment list, final int n)
    {
        if (Libmlx5.postSend(postSend, qp, list, bad) != 0)
        {
            throw new IllegalStateException("ibv_post_send of " + n + " WQEs failed");
        }
        int index = sqIndex;
        for (int i = 0; i < n; i++)
        {
            completer.complete(index++, Workload.OPCODE_WRITE); // 1 WQEBB each: wqe_counter = index
        }
        sqIndex = index;
        final int got = Libmlx5.pollCq(pollCq, cq, n, wc);
        final long last = (n - 1) * IbvWc.LAYOUT.byteSize();
        final long wrId = wc.get(ValueLayout.JAVA_LONG, last + IbvWc.WR_ID_OFFSET);
        final int status = wc.get(ValueLayout.JAVA_INT, last + IbvWc.STATUS_OFFSET);
        if (got != n || wrId != 15 || status != 0)
        {
            throw new IllegalStateException("ibv_poll_cq: expected " + n + " completions ending with wr_id 15, got "
                + got + " ending with " + wrId + " status " + status);
        }
        return got;
    }

    private int cycle(final int n)
    {
        int slot = next;
        for (int i = 0; i < n; i++)
        {
            completer.complete(slot, Workload.OPCODE_WRITE); // RDMA WRITE is 1 WQEBB: wqe_counter = index
            slot = (slot + 1) & (POSTED - 1);
        }
        next = slot;
        final int got = Libmlx5.pollCq(pollCq, cq, n, wc);
        final long last = (n - 1) * IbvWc.LAYOUT.byteSize();
        final long wrId = wc.get(ValueLayout.JAVA_LONG, last + IbvWc.WR_ID_OFFSET);
        final int status = wc.get(ValueLayout.JAVA_INT, last + IbvWc.STATUS_OFFSET);
        if (got != n || wrId != ((slot - 1) & (POSTED - 1)) || status != 0)
        {
            throw new IllegalStateException("ibv_poll_cq: expected " + n + " completions ending with wr_id "
                + ((slot - 1) & (POSTED - 1)) + ", got " + got + " ending with " + wrId + " status " + status);
        }
        return got;
    }
}
