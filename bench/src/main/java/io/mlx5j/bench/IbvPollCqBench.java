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
 * and does not check that it is still outstanding, so no re-post is needed (compare {@link Mlx5jPollBench}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
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

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        arena = Arena.ofConfined();
        pollCq = InlineVerbs.pollCqFn(env.cq.pointer());
        cq = Libmlx5.raw(env.cq.pointer());
        wc = arena.allocate(IbvWc.LAYOUT, 16);
        completer = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);

        final MemorySegment postSend = InlineVerbs.postSendFn(env.qp.pointer());
        final MemorySegment qp = Libmlx5.raw(env.qp.pointer());
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
        final MemorySegment bad = arena.allocate(ValueLayout.ADDRESS);
        for (int i = 0; i < POSTED; i++)
        {
            wr.set(ValueLayout.JAVA_LONG, IbvSendWr.WR_ID_OFFSET, i);
            if (Libmlx5.postSend(postSend, qp, wr, bad) != 0)
            {
                throw new IllegalStateException("ibv_post_send of WQE " + i + " failed");
            }
        }
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
