// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.mlx5j.doorbell.CqDoorbell;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.CqeView;
import io.mlx5j.wqe.WcStatus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decoding one 64-byte requester CQE: ownership check, opcode, wqe_counter, qpn, byte_cnt, status. A synthetic
 * completer in the same thread hands each slot back for the next pass by rewriting its {@code op_own} owner bit
 * (as the NIC would), so the ring recycles forever; that one byte store is part of every op.
 * {@link #pollOne} adds the consumer-index doorbell record update.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class CqeDecodeBench
{
    private static final int CQE_CNT = 256;
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    @Param({"heap", "native"})
    public String memory;

    private Arena arena;
    private MemorySegment cq;
    private final CqeView view = new CqeView();
    private CqDoorbell cqDoorbell;
    private int ci;

    @Setup(Level.Trial)
    public void setup()
    {
        final MemorySegment dbrec;
        final MemorySegment uar;
        if ("native".equals(memory))
        {
            arena = Arena.ofConfined();
            cq = arena.allocate(CQE_CNT * 64L, 4096);
            dbrec = arena.allocate(8, 64);
            uar = arena.allocate(4096, 4096);
        }
        else
        {
            cq = MemorySegment.ofArray(new long[CQE_CNT * 8]);
            dbrec = MemorySegment.ofArray(new long[1]);
            uar = MemorySegment.ofArray(new long[512]);
        }
        for (int i = 0; i < CQE_CNT; i++)
        {
            final long at = i * 64L;
            cq.set(BE32, at + Cqe64.BYTE_CNT_OFFSET, 4096);
            cq.set(BE32, at + Cqe64.SOP_DROP_QPN_OFFSET, 0x1234);
            cq.set(BE16, at + Cqe64.WQE_COUNTER_OFFSET, (short) i);
            // REQ, owner 0: software owns it on pass 0
            cq.set(ValueLayout.JAVA_BYTE, at + Cqe64.OP_OWN_OFFSET, (byte) (Cqe64.MLX5_CQE_REQ << 4));
        }
        view.wrap(cq, 64, CQE_CNT);
        cqDoorbell = new CqDoorbell(dbrec, uar, 7);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        if (arena != null)
        {
            arena.close();
        }
    }

    /** The synthetic completer: hand CQE {@code c} back in the state the NIC leaves it for the next pass. */
    private void recycle(final int c)
    {
        final long at = (long) (c & (CQE_CNT - 1)) << 6;
        final int nextOwner = ((c >>> 8) + 1) & 1; // log2(CQE_CNT) = 8
        cq.set(ValueLayout.JAVA_BYTE, at + Cqe64.OP_OWN_OFFSET, (byte) ((Cqe64.MLX5_CQE_REQ << 4) | nextOwner));
    }

    @Benchmark
    public void decodeCqe(final Blackhole bh)
    {
        final int c = ci;
        if (!view.tryAcquire(c))
        {
            throw new IllegalStateException("CQE " + c + " not owned: benchmark ring broken");
        }
        bh.consume(view.opcode());
        bh.consume(view.wqeCounter());
        bh.consume(view.qpn());
        bh.consume(view.byteCnt());
        final WcStatus status = view.status();
        bh.consume(status);
        recycle(c);
        ci = c + 1;
    }

    @Benchmark
    public void pollOne(final Blackhole bh)
    {
        final int c = ci;
        if (!view.tryAcquire(c))
        {
            throw new IllegalStateException("CQE " + c + " not owned: benchmark ring broken");
        }
        bh.consume(view.wqeCounter());
        bh.consume(view.qpn());
        bh.consume(view.byteCnt());
        bh.consume(view.status());
        recycle(c);
        ci = c + 1;
        cqDoorbell.consumerIndex(c + 1);
    }
}
