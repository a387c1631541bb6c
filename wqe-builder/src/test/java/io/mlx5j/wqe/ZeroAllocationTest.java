// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The post and poll paths allocate nothing per operation: the JVM's per-thread allocation counter stays below
 * 1 KiB over 200k post + poll cycles after warm-up (JMH's gc.alloc.rate.norm in the bench module is the precise
 * measurement).
 */
class ZeroAllocationTest
{
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private final SendRing sq = new SendRing(64);
    private final MemorySegment ring = MemorySegment.ofArray(new long[64 * 64 / 8]);
    private final WqeWriter w = new WqeWriter(4);
    private final MemorySegment cq = MemorySegment.ofArray(new long[64 * 64 / 8]);
    private final CqeView view = new CqeView().wrap(cq, 64, 64);
    private final MemorySegment inl = MemorySegment.ofArray(new long[4]);
    private final MemorySegment rq = MemorySegment.ofArray(new long[64 * 64 / 8]);
    private final RecvWqeWriter rw = new RecvWqeWriter();
    private final RecvRing rqq = new RecvRing(64, 64);
    private int ci;

    private long cycle(final int i)
    {
        final long ctrl = sq.claim(1);
        if (ctrl == SendRing.NO_SPACE)
        {
            throw new AssertionError("ring full");
        }
        w.wrap(ring, ctrl).raddr(0x1000L + i, 7).data(64, 8, 0x2000L + i)
            .ctrl(0, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, sq.wqeIndex(), 0x123, CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE, 0);
        final int idx = sq.wqeIndex();
        sq.commit(w.ds(), i);
        w.wrap(ring, sq.claim(1)).inline(inl, 0, 20)
            .ctrl(0, Mlx5Opcode.MLX5_OPCODE_SEND, sq.wqeIndex(), 0x123, 0, 0);
        sq.commit(w.ds(), i);
        rw.wrap(rq, rqq.claim(), 64).data(64, 9, 0x3000L).finish();
        rqq.commit(i);

        // the "device" completes the first WQE; the second stays outstanding until the next signaled one
        final long at = (long)(ci & 63) * 64;
        cq.set(BE_SHORT, at + Cqe64.WQE_COUNTER_OFFSET, (short)idx);
        cq.set(ValueLayout.JAVA_BYTE, at + Cqe64.OP_OWN_OFFSET, (byte)((ci >>> 6) & 1));
        long sum = 0;
        if (view.tryAcquire(ci))
        {
            sum += view.status().code() + view.byteCnt() + view.qpn() + view.scatterOffset();
            sum += sq.complete(view.wqeCounter());
            ci++;
        }
        sum += rqq.complete();
        return sum;
    }

    @Test
    void postAndPollAllocateNothing()
    {
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < 50_000; i++)
        {
            sink += cycle(i);
        }
        final long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 200_000; i++)
        {
            sink += cycle(i);
        }
        final long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        // One allocating cycle would cost >= 16 B * 200k = 3.2 MB. A few dozen bytes once (JIT deoptimisation,
        // lazy JDK internals) have been observed and are not per-cycle, so they are tolerated.
        assertTrue(allocated < 1024, allocated + " bytes allocated over 200k cycles (sink " + sink + ")");
    }

    private final UdpHeaderTemplate udp = new UdpHeaderTemplate(MemorySegment.ofArray(new long[8]));

    /** A raw send (template patch, Ethernet segment with 18 inline bytes or a VLAN tag, data) and a raw CQE read. */
    private long rawCycle(final int i)
    {
        udp.dstPort(i).prepare(i & 1023, i);
        final long ctrl = sq.claim(1);
        if (ctrl == SendRing.NO_SPACE)
        {
            throw new AssertionError("ring full");
        }
        final WqeWriter ww = w.wrap(ring, ctrl);
        if ((i & 1) == 0)
        {
            ww.eth(EthSeg.MLX5_ETH_WQE_L3_CSUM, 0, udp.segment(), 0, EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE);
        }
        else
        {
            ww.ethVlan(0, 0, udp.segment(), 0, EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE, i);
        }
        ww.data(i & 1023, 8, 0x2000L + i).ctrl(0, Mlx5Opcode.MLX5_OPCODE_SEND, sq.wqeIndex(), 0x123,
            CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE, 0);
        final int idx = sq.wqeIndex();
        sq.commit(w.ds(), i);
        final long at = (long)(ci & 63) * 64;
        cq.set(BE_SHORT, at + Cqe64.WQE_COUNTER_OFFSET, (short)idx);
        cq.set(ValueLayout.JAVA_BYTE, at + Cqe64.OP_OWN_OFFSET, (byte)((ci >>> 6) & 1));
        long sum = 0;
        if (view.tryAcquire(ci))
        {
            sum += view.flowTag() + view.vlanInfo() + view.l4HdrType() + (view.ipCsumOk() ? 1 : 0) +
                view.rssHashResult() + view.consumedStrides() + view.timestamp();
            sum += sq.complete(view.wqeCounter());
            ci++;
        }
        return sum;
    }

    @Test
    void rawSendAndReceiveAllocateNothing()
    {
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < 50_000; i++)
        {
            sink += rawCycle(i);
        }
        final long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 200_000; i++)
        {
            sink += rawCycle(i);
        }
        final long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1024, allocated + " bytes allocated over 200k raw cycles (sink " + sink + ")");
    }
}
