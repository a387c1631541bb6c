// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.bindings.IbvQpEx;
import io.mlx5j.bindings.IbvQpInitAttrEx;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvQpEx;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static io.mlx5j.bench.Workload.BATCH;

/**
 * Posting to a DC initiator: RDMA WRITEs of {@link Workload#WRITE_BYTES} bytes, each WQE naming its DC target
 * (address handle, DCT number, DC key) in its datagram segment, two targets alternately. Two rows in one run, on two
 * DCIs of one configuration in the {@link EmulatedQp} context: {@link #mlx5jRdmaWrite} (SendQueue staging form with
 * dcDestination) and {@link #libmlx5RdmaWrite} (libmlx5's ibv_wr_* + mlx5dv_wr_set_dc_addr called through FFM with
 * critical downcalls, the C code libmlx5 runs for the same WQE). One doorbell per WQE; a WQE is 2 WQEBBs (ctrl,
 * datagram, raddr, data: 96 bytes). One op = one WQE. Completions come from the {@link SyntheticCompleter}, so
 * no DCT needs to exist (the engine is off). {@link #mlx5jRcStagedRdmaWrite} is the same staging form on an RC QP
 * (one WQEBB, no datagram segment), so the cost of the staging form and the cost of the DC target can be told apart.
 * The C loop's {@code c.DciPostBench.libmlx5RdmaWrite} (src/main/c/libmlx5_dc.h) is the libmlx5 row without FFM.
 * The forks take the vector module as every mlx5j post benchmark's do ({@link ForkArgs#VECTOR}: the BlueFlame copy
 * of the 2 WQEBBs as two 512-bit stores); {@code -jvmArgsAppend} with {@link ForkArgs#NATIVE} and
 * {@link ForkArgs#SFENCE} alone measures the eight-8-byte-store copy (docs/performance.md, "DC initiator").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class DciPostBench
{
    private static final int DCI_WRITE_WQEBB = 2;
    private static final int IBV_SEND_SIGNALED = 1 << 1;
    private static final int[] DCTN = {0x00abcd, 0x001234};
    private static final long[] DC_KEY = {0x1122334455667788L, 0x0badc0ffee0ddf00L};
    private static final long DC_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND;

    private EmulatedQp env;
    private Arena arena;
    private AddressHandle ah;
    // mlx5j
    private SendQueue sq;
    private CqPoller poller;
    private SyntheticCompleter completerJ;
    private final Completion completion = new Completion();
    private int curPostJ;
    // mlx5j, the same staging form on the RC QP of EmulatedQp (no datagram segment): what DC adds
    private SendQueue rcSq;
    private CqPoller rcPoller;
    private SyntheticCompleter rcCompleter;
    private int curPostRc;
    // libmlx5
    private MemorySegment qpx;
    private MemorySegment mqp;
    private MemorySegment ahRaw;
    private MemorySegment wrStart;
    private MemorySegment wrComplete;
    private MemorySegment wrRdmaWrite;
    private MemorySegment wrSetSge;
    private MemorySegment wrSetDcAddr;
    private MemorySegment cqL;
    private MemorySegment pollCq;
    private MemorySegment wc;
    private SyntheticCompleter completerL;
    private int curPostL;
    private int lkey;
    private int rkey;
    private long src;
    private long raddr;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        arena = Arena.ofConfined();
        final PortAttributes port = env.context.queryPort(1);
        final AddressVector path = port.isEthernet()
            ? AddressVector.global(1, env.context.queryGid(1, 1), 1, 64, 0) : AddressVector.ib(1, port.lid(), 0);
        ah = env.pd.createAh(path);
        final CompletionQueue cqJ = env.context.createCq(EmulatedQp.CQ_DEPTH);
        final CompletionQueue cqLib = env.context.createCq(EmulatedQp.CQ_DEPTH);
        final QueuePair dciJ = env.pd.createQp(config(cqJ));
        final QueuePair dciL = env.pd.createQp(config(cqLib));
        dciJ.activateDc(1, 0, port.activeMtu(), null);
        dciL.activateDc(1, 0, port.activeMtu(), null);
        sq = SendQueue.of(dciJ, DoorbellMode.AUTO);
        poller = CqPoller.of(cqJ).attach(sq);
        completerJ = new SyntheticCompleter(cqJ.ring(), dciJ.qpn(), EmulatedQp.emulatorUidx(dciJ.qpn()));
        rcSq = SendQueue.of(env.qp, DoorbellMode.AUTO);
        rcPoller = CqPoller.of(env.cq).attach(rcSq);
        rcCompleter = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);
        qpx = Libmlx5.raw(dciL.qpEx()).reinterpret(IbvQpEx.LAYOUT.byteSize());
        mqp = Libmlx5.raw(Mlx5dv.mlx5dv_qp_ex_from_ibv_qp_ex(qpx)).reinterpret(Mlx5dvQpEx.LAYOUT.byteSize());
        ahRaw = Libmlx5.raw(ah.pointer());
        wrStart = InlineVerbs.wrFn(qpx, IbvQpEx.WR_START_OFFSET);
        wrComplete = InlineVerbs.wrFn(qpx, IbvQpEx.WR_COMPLETE_OFFSET);
        wrRdmaWrite = InlineVerbs.wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_OFFSET);
        wrSetSge = InlineVerbs.wrFn(qpx, IbvQpEx.WR_SET_SGE_OFFSET);
        wrSetDcAddr = mqp.get(ValueLayout.ADDRESS, Mlx5dvQpEx.WR_SET_DC_ADDR_OFFSET);
        pollCq = InlineVerbs.pollCqFn(cqLib.pointer());
        cqL = Libmlx5.raw(cqLib.pointer());
        wc = arena.allocate(IbvWc.LAYOUT);
        completerL = new SyntheticCompleter(cqLib.ring(), dciL.qpn(), EmulatedQp.emulatorUidx(dciL.qpn()));
        lkey = env.mr.lkey();
        rkey = env.mr.rkey();
        src = env.memory().address() + Workload.WRITE_SRC;
        raddr = env.memory().address() + Workload.WRITE_DST;
    }

    private static QpConfig config(final CompletionQueue cq)
    {
        return QpConfig.builder(QpType.DCI, cq).maxSendWr(EmulatedQp.MAX_SEND_WR).maxSendSge(1)
            .maxInlineData(EmulatedQp.MAX_INLINE).sendOpsFlags(DC_OPS).build();
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
        arena.close();
    }

    /** mlx5j: begin, remote, dcDestination, sge, post (RING). */
    @Benchmark
    public int mlx5jRdmaWrite()
    {
        final SendQueue sq = this.sq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            final int t = i & 1;
            if (!sq.begin(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID,
                Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, SendFlags.RING | (signaled ? SendFlags.SIGNALED : 0))
                .remote(raddr, rkey).dcDestination(ah, DCTN[t], DC_KEY[t]).sge(src, lkey, Workload.WRITE_BYTES).post())
            {
                throw new IllegalStateException("send queue full: the synthetic completer and the ring disagree");
            }
        }
        curPostJ += BATCH * DCI_WRITE_WQEBB;
        completerJ.complete(curPostJ - DCI_WRITE_WQEBB, Workload.OPCODE_WRITE);
        final int n = poller.poll(completion);
        if (n != 1 || completion.wrId() != Workload.SIGNALED_WR_ID || !completion.isSuccess())
        {
            throw Workload.badCompletion("CqPoller.poll", n, completion.wrId(), completion.statusCode());
        }
        return n;
    }

    /** mlx5j on RC, for attribution: begin, remote, sge, post (RING); one WQEBB per WQE. */
    @Benchmark
    public int mlx5jRcStagedRdmaWrite()
    {
        final SendQueue sq = this.rcSq;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            if (!sq.begin(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID,
                Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, SendFlags.RING | (signaled ? SendFlags.SIGNALED : 0))
                .remote(raddr, rkey).sge(src, lkey, Workload.WRITE_BYTES).post())
            {
                throw new IllegalStateException("send queue full: the synthetic completer and the ring disagree");
            }
        }
        curPostRc += BATCH * Workload.WRITE_WQEBB;
        rcCompleter.complete(curPostRc - Workload.WRITE_WQEBB, Workload.OPCODE_WRITE);
        final int n = rcPoller.poll(completion);
        if (n != 1 || completion.wrId() != Workload.SIGNALED_WR_ID || !completion.isSuccess())
        {
            throw Workload.badCompletion("CqPoller.poll", n, completion.wrId(), completion.statusCode());
        }
        return n;
    }

    /** libmlx5: wr_start, wr_id/wr_flags stores, wr_rdma_write, mlx5dv_wr_set_dc_addr, wr_set_sge, wr_complete. */
    @Benchmark
    public int libmlx5RdmaWrite()
    {
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            final int t = i & 1;
            Libmlx5.wr(wrStart, qpx);
            qpx.set(ValueLayout.JAVA_LONG, IbvQpEx.WR_ID_OFFSET,
                signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID);
            qpx.set(ValueLayout.JAVA_INT, IbvQpEx.WR_FLAGS_OFFSET, signaled ? IBV_SEND_SIGNALED : 0);
            Libmlx5.wrRdma(wrRdmaWrite, qpx, rkey, raddr);
            Libmlx5.wrSetDcAddr(wrSetDcAddr, mqp, ahRaw, DCTN[t], DC_KEY[t]);
            Libmlx5.wrSetSge(wrSetSge, qpx, lkey, src, Workload.WRITE_BYTES);
            if (Libmlx5.wrComplete(wrComplete, qpx) != 0)
            {
                throw new IllegalStateException("ibv_wr_complete failed");
            }
        }
        curPostL += BATCH * DCI_WRITE_WQEBB;
        completerL.complete(curPostL - DCI_WRITE_WQEBB, Workload.OPCODE_WRITE);
        final int n = Libmlx5.pollCq(pollCq, cqL, 1, wc);
        final long wrId = wc.get(ValueLayout.JAVA_LONG, IbvWc.WR_ID_OFFSET);
        final int status = wc.get(ValueLayout.JAVA_INT, IbvWc.STATUS_OFFSET);
        if (n != 1 || wrId != Workload.SIGNALED_WR_ID || status != 0)
        {
            throw Workload.badCompletion("ibv_poll_cq", n, wrId, status);
        }
        return n;
    }
}
