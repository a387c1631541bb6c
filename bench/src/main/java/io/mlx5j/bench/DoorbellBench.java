// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.doorbell.Dma;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.doorbell.SendDoorbell;
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
 * Doorbell-only costs: the doorbell record store alone, a full 8-byte-doorbell ring, and a full BlueFlame ring of a
 * 64-byte WQE (record, fences, copy, toggle). The "UAR" is ordinary memory here (heap long[] or native), so these
 * numbers are the CPU cost of the Java path; on hardware the WC MMIO stores and the NIC dominate.
 *
 * <p>Runs with {@code jdk.incubator.vector}, so on an AVX-512 machine each BlueFlame block is one 512-bit store;
 * {@link DoorbellScalarBench} repeats the same benchmarks on the eight-8-byte-store path for comparison.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class DoorbellBench
{
    private static final int SQ_BYTES = 64 * 64;
    private static final int BF_SIZE = 256;
    private static final ValueLayout.OfLong BE_LONG =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @Param({"heap", "native"})
    public String memory;

    private Arena arena;
    private MemorySegment sq;
    private DoorbellRecord record;
    private SendDoorbell blueFlame;
    private SendDoorbell doorbell;
    private int curPost;

    @Setup(Level.Trial)
    public void setup()
    {
        System.out.println("BlueFlame copy: " + (BlueFlameRegister.wideCopy() ? "512-bit" : "8 x 8-byte")
            + ", WC fences: " + Dma.wcFence());
        final MemorySegment dbrec;
        final MemorySegment uar;
        if ("native".equals(memory))
        {
            arena = Arena.ofConfined();
            sq = arena.allocate(SQ_BYTES, 4096);
            dbrec = arena.allocate(8, 64);
            uar = arena.allocate(2 * BF_SIZE, 4096);
        }
        else
        {
            sq = MemorySegment.ofArray(new long[SQ_BYTES / 8]);
            dbrec = MemorySegment.ofArray(new long[1]);
            uar = MemorySegment.ofArray(new long[2 * BF_SIZE / 8]);
        }
        for (long off = 0; off < SQ_BYTES; off += 8)
        {
            sq.set(ValueLayout.JAVA_LONG, off, off * 0x0101_0101L);
        }
        record = new DoorbellRecord(dbrec);
        final BlueFlameRegister bf = new BlueFlameRegister(uar, BF_SIZE, false);
        blueFlame = new SendDoorbell(sq, record, bf, DoorbellMode.BLUEFLAME);
        doorbell = new SendDoorbell(sq, record, bf, DoorbellMode.DOORBELL);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        if (arena != null)
        {
            arena.close();
        }
    }

    /** releaseFence + one big-endian 4-byte store. */
    @Benchmark
    public void doorbellRecord()
    {
        record.sendCounter(++curPost);
    }

    /** Record, wcStart, 8-byte store of the ctrl's first 8 bytes, wcFlush, toggle. */
    @Benchmark
    public void ringDoorbell8()
    {
        final int pi = ++curPost;
        doorbell.ring((pi & 63) << 6, 4, pi);
    }

    /**
     * The floor of one BlueFlame RDMA WRITE: what any post must do at least, measured alone. The six
     * big-endian 8-byte stores of its ctrl, raddr and data segments, then {@link #ringBlueFlame64}'s ring (record
     * with its release fence, wcStart, the 64-byte copy, toggle). No checks, no bookkeeping, no wr_id.
     */
    @Benchmark
    public void blueFlameWriteFloor()
    {
        final int pi = ++curPost;
        final long at = (long)(pi & 63) << 6;
        final long v = pi;
        sq.set(BE_LONG, at, v << 8 | 0x08);          // ctrl: opmod_idx_opcode (RDMA WRITE)
        sq.set(BE_LONG, at + 8, 0x0000_0103_0800_0000L | v << 40); // ctrl: qpn_ds, fm_ce_se
        sq.set(BE_LONG, at + 16, 0x7f00_0000_0000L + v); // raddr
        sq.set(BE_LONG, at + 24, 0x1234_0000_0000L);  // rkey, reserved
        sq.set(BE_LONG, at + 32, 0x0000_0008_0000_5678L); // byte_count, lkey
        sq.set(BE_LONG, at + 40, 0x7e00_0000_0000L + v); // addr
        blueFlame.ring(at, 4, pi);
    }

    /** Record, wcStart, BlueFlame copy of one 64-byte WQEBB (one 512-bit or eight 8-byte stores), toggle. */
    @Benchmark
    public void ringBlueFlame64()
    {
        final int pi = ++curPost;
        blueFlame.ring((pi & 63) << 6, 4, pi);
    }
}
