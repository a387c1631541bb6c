// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.mlx5j.bindings.IbvCqEx;
import io.mlx5j.bindings.IbvCqInitAttrEx;
import io.mlx5j.bindings.IbvPollCqAttr;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.verbs.WqRing;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The libmlx5 counterpart of {@link StridingRecvBench#recv1}, through FFM: one frame received on a striding WQ the
 * way a program on libmlx5 v44 has to do it, since libmlx5 has no striding receive path (rdma-core v44.12
 * providers/mlx5):
 * <ul>
 * <li>ibv_post_wq_recv (mlx5_post_wq_recv) writes the scatter entry at the start of the WQE, where a striding WQE has
 *     its next segment, so it cannot post one; the WQEs here are written in setup in the layout of mlx5dv.h's
 *     struct mlx5_mprq_wqe (by mlx5j's StridingRecvQueue, whose bytes WqRecvParityTest judges against
 *     mlx5dv_set_data_seg), and a released WQE goes back through the doorbell record, as DPDK's mlx5 PMD does;</li>
 * <li>ibv_start_poll / ibv_next_poll / ibv_end_poll have no striding decoder (cq.c): each CQE advances libmlx5's
 *     rq.tail and reports wrid[tail], so wr_id is meaningless; ibv_wc_read_byte_len returns the whole byte_cnt word
 *     (length | strides &lt;&lt; 16 | filler &lt;&lt; 31), a filler is an ordinary completion, and nothing returns
 *     wqe_counter, the stride index. So length, stride count and filler come from byte_len, and the stride cursor
 *     and WQE index are kept here (the device fills strides in order: the cursor is the stride index mlx5j reads
 *     and checks, unchecked here); the timestamp comes from ibv_wc_read_completion_ts.</li>
 * </ul>
 * Everything else is StridingRecvBench's: a 1023-entry CQ (an ibv_cq_ex with byte_len and completion timestamps),
 * 16 WQEs of 32 strides of 64 bytes with the two-byte shift, frames of 1..4 strides with a filler where a frame does
 * not fit, the same {@link StridingInjector} CQEs (with the WQ's user index, which libmlx5 needs), one poll call per
 * frame, each released WQE posted again at once; the result is the frame's address plus its timestamp. The C loop's
 * c.IbvStridingRecvBench.recv1 (src/main/c/libmlx5_striding.h) does the same from C. One op = one frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvStridingRecvBench
{
    private static final int WQES = 16;
    private static final int STRIDES = 32;
    private static final int STRIDE_BYTES = 64;
    private static final int SHIFT = 2;
    /** Consumed strides, byte_cnt[29:16] shifted down (DPDK mlx5_prm.h: MLX5_MPRQ_STRIDE_NUM_MASK 0x3fff0000). */
    private static final int STRIDES_MASK = 0x3fff;
    /** IBV_WC_EX_WITH_BYTE_LEN (verbs.h enum ibv_create_cq_wc_flags). */
    private static final long WITH_BYTE_LEN = 1L;
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Context context;
    private Arena arena;
    private MemorySegment cqx;
    private MemorySegment attr;
    private MemorySegment startPoll;
    private MemorySegment nextPoll;
    private MemorySegment endPoll;
    private MemorySegment readByteLen;
    private MemorySegment readTs;
    private MemorySegment dbrec;
    private final long[] addr = new long[WQES];
    private StridingInjector injector;
    private int head;
    private int tail;
    private int cursor;
    private int frame;

    @Setup(Level.Trial)
    public void setup()
    {
        ForkArgs.requireExport();
        EmulatedQp.requireIdleEmulator();
        context = Context.openFirst();
        if (!context.queryPort(1).isEthernet())
        {
            context.close();
            throw new IllegalStateException("IbvStridingRecvBench needs an Ethernet port: emulator/mlx5emu --link eth");
        }
        arena = Arena.ofShared();
        final ProtectionDomain pd = context.allocPd();
        final MemoryRegion mr = pd.register(arena.allocate(1 << 20, 4096), Access.LOCAL_WRITE);
        final CompletionQueue ring = context.createCqEx(1023,
            WITH_BYTE_LEN | IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
        // The WQ's user index, which no API returns: libmlx5 gives each QP and WQ the lowest free index (mlx5.c
        // get_free_uidx) and frees it on destroy, so a QP created and destroyed just before shows the WQ's.
        final int uidx = probeUidx(pd, ring);
        final WorkQueue wq = pd.createWq(WorkQueue.builder(ring).maxWr(WQES).striding(6, 5, true)).ready();
        if (probeUidx(pd, ring) == uidx)
        {
            throw new IllegalStateException("the striding WQ did not get user index " + uidx);
        }
        final StridingRecvQueue q = StridingRecvQueue.of(wq, false);
        for (int i = 0; i < WQES; i++)
        {
            addr[i] = mr.address() + i * (long) q.bufferBytes();
            q.post(i, addr[i], mr.lkey());
        }
        q.ring();
        head = WQES;
        final WqRing rings = wq.rings();
        if (rings.wqeCnt() != WQES)
        {
            throw new IllegalStateException("striding WQ of " + rings.wqeCnt() + " WQEs, want " + WQES);
        }
        dbrec = Libmlx5.raw(rings.dbrec()).reinterpret(4);
        cqx = Libmlx5.raw(ring.pointer()).reinterpret(IbvCqEx.LAYOUT.byteSize());
        attr = Libmlx5.raw(arena.allocate(IbvPollCqAttr.LAYOUT));
        startPoll = InlineVerbs.cqFn(cqx, IbvCqEx.START_POLL_OFFSET);
        nextPoll = InlineVerbs.cqFn(cqx, IbvCqEx.NEXT_POLL_OFFSET);
        endPoll = InlineVerbs.cqFn(cqx, IbvCqEx.END_POLL_OFFSET);
        readByteLen = InlineVerbs.cqFn(cqx, IbvCqEx.READ_BYTE_LEN_OFFSET);
        readTs = InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_TS_OFFSET);
        injector = new StridingInjector(ring, uidx);
    }

    private static int probeUidx(final ProtectionDomain pd, final CompletionQueue cq)
    {
        final QueuePair probe = pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(1).maxRecvWr(1).build());
        try
        {
            return EmulatedQp.emulatorUidx(probe.qpn());
        }
        finally
        {
            probe.close();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        context.close();
        arena.close();
    }

    @Benchmark
    public long recv1()
    {
        final int strides = 1 + (frame++ & 3);
        final boolean filler = cursor + strides > STRIDES;
        if (filler)
        {
            injector.put(cursor, StridingInjector.FILLER | (STRIDES - cursor) << 16);
        }
        injector.put(filler ? 0 : cursor, (strides * STRIDE_BYTES - SHIFT) | strides << 16);
        int rc = RawLibmlx5.startPoll(startPoll, cqx, attr);
        if (rc != 0)
        {
            throw new IllegalStateException("ibv_start_poll (striding): " + rc);
        }
        int byteLen = RawLibmlx5.cqInt(readByteLen, cqx);
        if ((byteLen & StridingInjector.FILLER) != 0)
        {
            // the rest of the WQE is skipped: it is done
            if (status() != 0 || (byteLen >>> 16 & STRIDES_MASK) != STRIDES - cursor)
            {
                throw bad("filler", byteLen);
            }
            release();
            if ((rc = RawLibmlx5.cqInt(nextPoll, cqx)) != 0)
            {
                throw new IllegalStateException("ibv_next_poll (striding): " + rc);
            }
            byteLen = RawLibmlx5.cqInt(readByteLen, cqx);
        }
        final int n = byteLen >>> 16 & STRIDES_MASK;
        if (status() != 0 || (byteLen & StridingInjector.FILLER) != 0 || n != strides ||
            (byteLen & 0xffff) != strides * STRIDE_BYTES - SHIFT || cursor + n > STRIDES)
        {
            throw bad("frame", byteLen);
        }
        final long frameAddress = addr[tail & (WQES - 1)] + (long) cursor * STRIDE_BYTES + SHIFT;
        final long ts = RawLibmlx5.cqLong(readTs, cqx);
        RawLibmlx5.endPoll(endPoll, cqx);
        cursor += n;
        if (cursor == STRIDES)
        {
            release();
        }
        return frameAddress + ts;
    }

    private int status()
    {
        return cqx.get(ValueLayout.JAVA_INT, IbvCqEx.STATUS_OFFSET);
    }

    private IllegalStateException bad(final String what, final int byteLen)
    {
        return new IllegalStateException("striding " + what + ": byte_len 0x" + Integer.toHexString(byteLen) +
            " status " + status() + " at stride " + cursor);
    }

    /**
     * All strides of the oldest WQE consumed: post it again with the same buffer. All WQES are always outstanding, so
     * the slot it goes to is its own and its bytes stay as they are; only the doorbell record moves (release: after
     * the WQE, as mlx5_post_wq_recv orders them).
     */
    private void release()
    {
        tail++;
        cursor = 0;
        head++;
        VarHandle.releaseFence();
        dbrec.set(BE32, 0, head & 0xffff);
    }
}
