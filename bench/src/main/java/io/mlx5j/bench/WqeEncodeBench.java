// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.doorbell.SendDoorbell;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WqeWriter;
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

/**
 * One RDMA_WRITE WQE with one SGE (ctrl + raddr + data = 48 bytes, one WQEBB):
 * <ul>
 *   <li>{@link #encodeRdmaWrite}: the segment stores only, cycling through a 64-WQEBB ring;</li>
 *   <li>{@link #postRdmaWrite}: plus the send-ring bookkeeping (claim, commit with wr_id) and retiring the WQE as a
 *       signaled completion for it would (complete(wqe_counter));</li>
 *   <li>{@link #postRdmaWriteBlueFlame}: plus the doorbell record, fences and a BlueFlame copy of the WQE into a
 *       stand-in UAR, i.e. the whole Java post path without the device.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class WqeEncodeBench
{
    private static final int WQE_CNT = 64;
    private static final int QPN = 0x1234;
    private static final int LKEY = 0x1111;
    private static final int RKEY = 0x2222;

    @Param({"heap", "native"})
    public String memory;

    private Arena arena;
    private MemorySegment ring;
    private final WqeWriter writer = new WqeWriter(4);
    private final SendRing sendQueue = new SendRing(WQE_CNT);
    private SendDoorbell doorbell;
    private int n;

    @Setup(Level.Trial)
    public void setup()
    {
        final MemorySegment dbrec;
        final MemorySegment uar;
        if ("native".equals(memory))
        {
            arena = Arena.ofConfined();
            ring = arena.allocate(WQE_CNT * 64L, 4096);
            dbrec = arena.allocate(8, 64);
            uar = arena.allocate(512, 4096);
        }
        else
        {
            ring = MemorySegment.ofArray(new long[WQE_CNT * 8]);
            dbrec = MemorySegment.ofArray(new long[1]);
            uar = MemorySegment.ofArray(new long[64]);
        }
        doorbell = new SendDoorbell(ring, new DoorbellRecord(dbrec), new BlueFlameRegister(uar, 256, false),
            DoorbellMode.BLUEFLAME);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        if (arena != null)
        {
            arena.close();
        }
    }

    @Benchmark
    public int encodeRdmaWrite()
    {
        final int i = ++n;
        final long ctrl = (long) (i & (WQE_CNT - 1)) << 6;
        return writer.wrap(ring, ctrl)
            .raddr(0x7f00_0000_1000L + i, RKEY)
            .data(4096, LKEY, 0x7f00_0000_8000L)
            .ctrl(0, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, i, QPN, CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE, 0)
            .ds();
    }

    @Benchmark
    public long postRdmaWrite()
    {
        final SendRing sq = sendQueue;
        final long ctrl = sq.claim(1);
        final int wqeIndex = sq.wqeIndex();
        final int ds = writer.wrap(ring, ctrl)
            .raddr(0x7f00_0000_1000L + wqeIndex, RKEY)
            .data(4096, LKEY, 0x7f00_0000_8000L)
            .ctrl(0, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, wqeIndex, QPN, CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE, 0)
            .ds();
        sq.commit(ds, wqeIndex);
        return sq.complete(wqeIndex); // the requester CQE for this signaled WQE retires it
    }

    @Benchmark
    public long postRdmaWriteBlueFlame()
    {
        final SendRing sq = sendQueue;
        final long ctrl = sq.claim(1);
        final int wqeIndex = sq.wqeIndex();
        final int ds = writer.wrap(ring, ctrl)
            .raddr(0x7f00_0000_1000L + wqeIndex, RKEY)
            .data(4096, LKEY, 0x7f00_0000_8000L)
            .ctrl(0, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, wqeIndex, QPN, CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE, 0)
            .ds();
        final int pi = sq.commit(ds, wqeIndex);
        doorbell.ring(ctrl, ds, pi);
        return sq.complete(wqeIndex);
    }
}
