// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.NicClock;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.DeviceCapabilities;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The raw send and receive paths allocate nothing per frame: a template patch, a RawSendQueue post (inline and
 * gathered, with checksum offload and a VLAN tag), the doorbell, CqPoller's decoding of the send CQE and of a raw
 * receive CQE (flow tag, checksum, frame address), the receive repost and a NicClock conversion, 200k times after
 * warm-up (long enough for C2 to compile the vector copy of the parity-roce run), measured with the thread's
 * allocation counter; and the striding receive path: CqPoller decoding striding
 * CQEs of a recycling {@link StridingRecvQueue} (frames, fillers, WQE release and repost with its doorbell record
 * update, the frame view, RSS hash, NicClock). The device is idle (engine off); the CQEs are written the way the
 * device writes them.
 */
@Tag("parity")
class RawZeroAllocationTest
{
    @Test
    void rawSendAndReceiveAllocateNothing()
    {
        try (Rig rig = new Rig())
        {
            Assumptions.assumeTrue(rig.roce, "raw packet QPs need an Ethernet port");
            final CompletionQueue cq = rig.cq(256);
            final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(64).maxRecvWr(64)
                .maxSendSge(2).maxRecvSge(1).maxInlineData(128).build());
            qp.activate(1);
            final MemoryRegion mr = rig.memory(1 << 20);
            final RawSendQueue sq = RawSendQueue.of(qp, DoorbellMode.AUTO);
            final RecvQueue rq = RecvQueue.of(qp);
            final CqPoller dcq = CqPoller.of(cq).attach(sq.queue()).attach(rq);
            final Injector inj = new Injector(cq);
            final int uidx = EmulatedDevice.uidx(qp.qpn());
            final UdpHeaderTemplate h = new UdpHeaderTemplate(mr.memory().asSlice(0, 64)).srcMac(0x020000000001L)
                .srcIp(0x0a000001).multicast(0xef000001, 5000);
            final long payload = mr.address() + 4096;
            final Completion c = new Completion();
            for (int i = 0; i < 32; i++)
            {
                rq.post(i, mr.address() + 65536 + i * 2048L, mr.lkey(), 2048);
            }
            rq.ring();
            try (NicClock clock = NicClock.of(rig.context))
            {
                final Cycle cycle = new Cycle(sq, rq, dcq, inj, qp.qpn(), uidx, h, mr, payload, c, clock);
                long sink = 0;
                // a long warm-up: in the parity-roce run the inline frames' bytes go by 512-bit vectors
                // (RingStores.copyWide), and the Vector API allocates its vectors until C2 has compiled the copy
                // (50k cycles were not always enough: 24 B per cycle measured; 1M always were)
                for (int i = 0; i < 1_000_000; i++)
                {
                    sink += cycle.run(i);
                }
                final com.sun.management.ThreadMXBean mx =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                final long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 200_000; i++)
                {
                    sink += cycle.run(i);
                }
                final long allocated = mx.getCurrentThreadAllocatedBytes() - before;
                // one allocation per cycle would be at least 16 B x 200k = 3.2 MB; what stays below 64 KiB is the JIT's
                // and class loading's one-off noise (a run on a loaded machine saw 1440 B), not the cycle
                assertTrue(allocated < 65536, allocated + " bytes over 200k raw send + receive cycles (" + sink + ")");
            }
        }
    }

    @Test
    void stridingReceiveAllocatesNothing()
    {
        try (Rig rig = new Rig())
        {
            Assumptions.assumeTrue(rig.roce, "WQs need an Ethernet port");
            final CompletionQueue cq = rig.cq(256);
            // ConnectX-4 Lx has no striding RQ (WqRecvParityTest checks that the device refuses one)
            Assumptions.assumeTrue(DeviceCapabilities.query(rig.context).stridingQpTypes() != 0,
                "the device has no striding RQ");
            final WorkQueue wq = rig.pd.createWq(WorkQueue.builder(cq).maxWr(16).striding(6, 4, true)).ready();
            final MemoryRegion mr = rig.memory(1 << 20);
            final StridingRecvQueue q = StridingRecvQueue.of(wq, true);
            for (int i = 0; i < 16; i++)
            {
                q.post(i, mr.address() + i * 1024L, mr.lkey());
            }
            q.ring();
            final CqPoller dcq = CqPoller.of(cq).attach(q);
            final Injector inj = new Injector(cq);
            final Completion c = new Completion();
            try (NicClock clock = NicClock.of(rig.context))
            {
                final StridingCycle cycle = new StridingCycle(dcq, inj, c, clock, new int[1]);
                long sink = 0;
                for (int i = 0; i < 50_000; i++)
                {
                    sink += cycle.run(i);
                }
                final com.sun.management.ThreadMXBean mx =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                final long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 200_000; i++)
                {
                    sink += cycle.run(i);
                }
                final long allocated = mx.getCurrentThreadAllocatedBytes() - before;
                assertTrue(allocated < 65536, allocated + " bytes over 200k striding receives (" + sink + ")");
                assertEquals(16, q.outstanding(), "every released WQE was posted again");
            }
        }
    }

    /**
     * One frame of 1..5 strides into a 16-stride WQE; when it does not fit the strides left, a filler CQE for them
     * first (which releases and recycles the WQE).
     */
    private record StridingCycle(CqPoller dcq, Injector inj, Completion c, NicClock clock, int[] cursor)
    {
        long run(final int i)
        {
            final int strides = 1 + i % 5;
            final int len = strides * 64 - 2 - (i & 31);
            if (cursor[0] + strides > 16)
            {
                inj.put(2, 0x77, 0, cursor[0], 0x80000000 | (16 - cursor[0]) << 16);
                cursor[0] = 0;
            }
            inj.put(2, 0x77, 0, cursor[0], len | strides << 16);
            if (dcq.poll(c) != 1 || c.strideIndex() != cursor[0] || c.byteLen() != len)
            {
                throw new IllegalStateException("striding completion " + i + ": " + c);
            }
            cursor[0] += strides;
            if (cursor[0] == 16)
            {
                cursor[0] = 0;
            }
            return c.frameAddress() + c.flowTag() + c.rssHash() + c.releasedWqes() + clock.toNanos(c.timestamp());
        }
    }

    /** One frame out and one frame in. */
    private record Cycle(RawSendQueue sq, RecvQueue rq, CqPoller dcq, Injector inj, int qpn, int uidx,
        UdpHeaderTemplate h, MemoryRegion mr, long payload, Completion c, NicClock clock)
    {
        long run(final int i)
        {
            final int pi = sq.producerCounter();
            h.dstPort(5000 + (i & 7)).prepare(64, i);
            final int flags = SendFlags.SIGNALED | SendFlags.IP_CSUM | SendFlags.RING |
                ((i & 1) == 0 ? SendFlags.INLINE : 0);
            if (!sq.send(i, h, mr.lkey(), payload, mr.lkey(), 64, (i & 2) == 0 ? RawSendQueue.NO_VLAN : i & 0xfff,
                flags))
            {
                throw new IllegalStateException("ring full");
            }
            inj.put(0, Mlx5Opcode.MLX5_OPCODE_SEND << 24 | qpn, uidx, pi, 0);
            if (dcq.poll(c) != 1 || c.wrId() != i)
            {
                throw new IllegalStateException("send completion " + c);
            }
            long sum = c.timestamp();
            inj.put(2, 0x77, uidx, 0, 106);
            if (dcq.poll(c) != 1)
            {
                throw new IllegalStateException("no receive completion");
            }
            sum += c.flowTag() + c.byteLen() + c.frameAddress() + (c.ipCsumOk() ? 1 : 0) + clock.toNanos(c.timestamp());
            if (!rq.post(c.wrId(), c.frameAddress(), mr.lkey(), 2048))
            {
                throw new IllegalStateException("receive ring full");
            }
            rq.ring();
            return sum;
        }
    }

    /**
     * CQEs written as the device writes them, without allocating (the tests' CqeInjector slices the ring per CQE,
     * which would be counted here): body, then op_own with the pass's owner bit.
     */
    private static final class Injector
    {
        private static final java.lang.foreign.ValueLayout.OfInt BE32 =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        private static final java.lang.foreign.ValueLayout.OfShort BE16 =
            java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        private final java.lang.foreign.MemorySegment buf;
        private final int cnt;
        private int produced;

        Injector(final CompletionQueue cq)
        {
            this.buf = cq.ring().buf();
            this.cnt = cq.ring().cqeCnt();
        }

        void put(final int opcode, final int sopDropQpn, final int uidx, final int wqeCounter, final int byteCnt)
        {
            final long at = (long) (produced & (cnt - 1)) * 64;
            for (int i = 0; i < 64; i += 8)
            {
                buf.set(java.lang.foreign.ValueLayout.JAVA_LONG, at + i, 0L);
            }
            buf.set(BE32, at + 0x20, uidx & 0xffffff);
            buf.set(BE32, at + 0x2c, byteCnt);
            buf.set(BE32, at + 0x38, sopDropQpn);
            buf.set(BE16, at + 0x3c, (short) wqeCounter);
            java.lang.invoke.VarHandle.releaseFence();
            buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at + 0x3f, (byte) (opcode << 4 | ((produced / cnt) & 1)));
            produced++;
        }
    }
}
