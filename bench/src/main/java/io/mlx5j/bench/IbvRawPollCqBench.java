// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

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
 * libmlx5's raw receive path from Java through FFM: the {@link RawRecvCompleter} writes 1 or 16 raw receive CQEs,
 * {@code ibv_poll_cq} (the provider's poll_cq pointer, critical downcall) decodes them into {@code ibv_wc}s on an
 * ordinary CQ, and each buffer goes back with {@code ibv_post_recv} (one call per frame, or one list of 16 per
 * 16 frames), the same work as {@link Mlx5jRawRecvBench#recv1} / {@link Mlx5jRawRecvBench#recv16}. One op = one
 * frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE})
public class IbvRawPollCqBench
{
    /** IBV_WC_IP_CSUM_OK (verbs.h: 1 << IBV_WC_IP_CSUM_OK_SHIFT, shift 2). */
    static final int IBV_WC_IP_CSUM_OK = 1 << 2;
    private static final long WC = IbvWc.LAYOUT.byteSize();

    private EmulatedRawQp env;
    private Arena arena;
    private MemorySegment cq;
    private MemorySegment pollCq;
    private MemorySegment wc;
    private IbvRecvWrs wrs;
    private RawRecvCompleter completer;
    private int next;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedRawQp.open(0);
        arena = Arena.ofConfined();
        pollCq = InlineVerbs.pollCqFn(env.recvCq.pointer());
        cq = Libmlx5.raw(env.recvCq.pointer());
        wc = Libmlx5.raw(arena.allocate(IbvWc.LAYOUT, 16)).reinterpret(16 * WC);
        wrs = new IbvRecvWrs(env, arena);
        completer = new RawRecvCompleter(env.recvCq.ring(), env.uidx, 1L << 40);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
        arena.close();
    }

    /** One frame per poll call, one ibv_post_recv per frame. */
    @Benchmark
    public long recv1()
    {
        final int slot = next;
        completer.complete(slot, RawWorkload.FRAME);
        final int got = Libmlx5.pollCq(pollCq, cq, 1, wc);
        if (got != 1)
        {
            throw new IllegalStateException("ibv_poll_cq: no receive completion (" + got + ")");
        }
        check(0, slot);
        wrs.single(slot);
        next = (slot + 1) & (EmulatedRawQp.MAX_WR - 1);
        return wc.get(ValueLayout.JAVA_INT, IbvWc.BYTE_LEN_OFFSET);
    }

    /** 16 frames per poll call, one ibv_post_recv of 16 buffers. */
    @Benchmark
    @OperationsPerInvocation(16)
    public long recv16()
    {
        final int first = next;
        for (int i = 0; i < 16; i++)
        {
            completer.complete(first + i, RawWorkload.FRAME);
        }
        final int got = Libmlx5.pollCq(pollCq, cq, 16, wc);
        if (got != 16)
        {
            throw new IllegalStateException("ibv_poll_cq: expected 16 receive completions, got " + got);
        }
        long sum = 0;
        for (int i = 0; i < 16; i++)
        {
            check(i, first + i);
            sum += wc.get(ValueLayout.JAVA_INT, i * WC + IbvWc.BYTE_LEN_OFFSET);
        }
        wrs.group(first);
        next = (first + 16) & (EmulatedRawQp.MAX_WR - 1);
        return sum;
    }

    private void check(final int i, final int slot)
    {
        final long at = i * WC;
        final long wrId = wc.get(ValueLayout.JAVA_LONG, at + IbvWc.WR_ID_OFFSET);
        final int status = wc.get(ValueLayout.JAVA_INT, at + IbvWc.STATUS_OFFSET);
        final int len = wc.get(ValueLayout.JAVA_INT, at + IbvWc.BYTE_LEN_OFFSET);
        final int flags = wc.get(ValueLayout.JAVA_INT, at + IbvWc.WC_FLAGS_OFFSET);
        if (wrId != slot || status != 0 || len != RawWorkload.FRAME || (flags & IBV_WC_IP_CSUM_OK) == 0)
        {
            throw new IllegalStateException("ibv_poll_cq: expected the " + RawWorkload.FRAME + "-byte frame of " +
                "receive " + slot + " with IBV_WC_IP_CSUM_OK, got wr_id " + wrId + " status " + status + " byte_len " +
                len + " wc_flags 0x" + Integer.toHexString(flags));
        }
    }
}
