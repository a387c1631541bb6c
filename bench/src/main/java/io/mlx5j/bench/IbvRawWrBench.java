// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import io.mlx5j.bindings.IbvDataBuf;
import io.mlx5j.bindings.IbvQpEx;
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
 * libmlx5's {@code ibv_wr_*} API on a raw packet QP from Java through FFM (the {@code ibv_qp_ex} member pointers,
 * critical downcalls). libmlx5 v44 supports it there: IBV_QP_EX_WITH_SEND (and TSO) on IBV_QPT_RAW_PACKET,
 * with the Ethernet builders mlx5_send_wr_send_eth, mlx5_send_wr_set_sge_list_eth and
 * mlx5_send_wr_set_inline_data_list_eth (providers/mlx5/qp.c, mlx5_qp_fill_wr_pfns), which write the same WQE as
 * ibv_post_send. One frame: {@code wr_start}, {@code wr_id}/{@code wr_flags} (IBV_SEND_IP_CSUM) stores,
 * {@code wr_send}, {@code wr_set_sge_list} of the two pieces (or {@code wr_set_inline_data_list}),
 * {@code wr_complete}: four downcalls. The same frames, QP and completions as {@link IbvRawPostSendBench}.
 * One op = one frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvRawWrBench
{
    private EmulatedRawQp env;
    private Arena arena;
    private MemorySegment qpx;
    private MemorySegment wrStart;
    private MemorySegment wrComplete;
    private MemorySegment wrSend;
    private MemorySegment wrSetSgeList;
    private MemorySegment wrSetInlineDataList;
    private MemorySegment cq;
    private MemorySegment pollCq;
    private MemorySegment wc;
    private SyntheticCompleter completer;
    private int curPost;
    private int sgeWqebb;
    private int inlineWqebb;
    private MemorySegment sgl;
    private MemorySegment bufs;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedRawQp.open(0);
        arena = Arena.ofConfined();
        qpx = Libmlx5.raw(env.qp.qpEx()).reinterpret(IbvQpEx.LAYOUT.byteSize());
        wrStart = InlineVerbs.wrFn(qpx, IbvQpEx.WR_START_OFFSET);
        wrComplete = InlineVerbs.wrFn(qpx, IbvQpEx.WR_COMPLETE_OFFSET);
        wrSend = InlineVerbs.wrFn(qpx, IbvQpEx.WR_SEND_OFFSET);
        wrSetSgeList = InlineVerbs.wrFn(qpx, IbvQpEx.WR_SET_SGE_LIST_OFFSET);
        wrSetInlineDataList = InlineVerbs.wrFn(qpx, IbvQpEx.WR_SET_INLINE_DATA_LIST_OFFSET);
        pollCq = InlineVerbs.pollCqFn(env.sendCq.pointer());
        cq = Libmlx5.raw(env.sendCq.pointer());
        wc = arena.allocate(IbvWc.LAYOUT);
        completer = new SyntheticCompleter(env.sendCq.ring(), env.qp.qpn(), env.uidx);
        sgeWqebb = RawWorkload.libmlx5Wqebb(env.minInline, false);
        inlineWqebb = RawWorkload.libmlx5Wqebb(env.minInline, true);

        sgl = arena.allocate(IbvSge.LAYOUT, 2);
        bufs = arena.allocate(IbvDataBuf.LAYOUT, 2);
        final long[] addr = {env.headerAddress(), env.payload()};
        final int[] len = {UdpHeaderTemplate.LENGTH, RawWorkload.PAYLOAD};
        for (int i = 0; i < 2; i++)
        {
            final long s = i * IbvSge.LAYOUT.byteSize();
            sgl.set(ValueLayout.JAVA_LONG, s + IbvSge.ADDR_OFFSET, addr[i]);
            sgl.set(ValueLayout.JAVA_INT, s + IbvSge.LENGTH_OFFSET, len[i]);
            sgl.set(ValueLayout.JAVA_INT, s + IbvSge.LKEY_OFFSET, env.mr.lkey());
            final long b = i * IbvDataBuf.LAYOUT.byteSize();
            bufs.set(ValueLayout.JAVA_LONG, b + IbvDataBuf.ADDR_OFFSET, addr[i]);
            bufs.set(ValueLayout.JAVA_LONG, b + IbvDataBuf.LENGTH_OFFSET, len[i]);
        }
        sgl = Libmlx5.raw(sgl);
        bufs = Libmlx5.raw(bufs);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
        arena.close();
    }

    /** The frame as two gather entries. */
    @Benchmark
    public int udpSge()
    {
        return cycle(wrSetSgeList, sgl, sgeWqebb);
    }

    /** The frame inline. */
    @Benchmark
    public int udpInline()
    {
        return cycle(wrSetInlineDataList, bufs, inlineWqebb);
    }

    private int cycle(final MemorySegment setter, final MemorySegment list, final int wqebb)
    {
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            Libmlx5.wr(wrStart, qpx);
            qpx.set(ValueLayout.JAVA_LONG, IbvQpEx.WR_ID_OFFSET,
                signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID);
            qpx.set(ValueLayout.JAVA_INT, IbvQpEx.WR_FLAGS_OFFSET,
                IbvSendWr.IBV_SEND_IP_CSUM | (signaled ? IbvSendWr.IBV_SEND_SIGNALED : 0));
            Libmlx5.wr(wrSend, qpx);
            RawLibmlx5.wrList(setter, qpx, 2, list);
            final int rc = Libmlx5.wrComplete(wrComplete, qpx);
            if (rc != 0)
            {
                throw new IllegalStateException("ibv_wr_complete failed: " + rc);
            }
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
}
