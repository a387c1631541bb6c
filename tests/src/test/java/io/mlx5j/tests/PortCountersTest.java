// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PortCounters;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PortCounters} on the emulated port, after known traffic: each counter moved by exactly what the traffic
 * accounts for (deltas: the counters belong to the fabric, which other tests of this JVM used before). RC requests
 * as the responder's port counts them (rx_write_requests, rx_read_requests, rx_atomic_requests of
 * drivers/infiniband/hw/mlx5/counters.c); raw multicast frames on an Ethernet port: packets, data in 4-byte words,
 * multicast packets, and out_of_buffer for the frames that found no receive WQE.
 */
@Tag("links")
class PortCountersTest
{
    private static final int GROUP = 0xef01030a;
    private static final int UDP_PORT = 32011;

    private Rig rig;

    @BeforeEach
    void open()
    {
        rig = new Rig();
    }

    @AfterEach
    void close()
    {
        rig.close();
    }

    private PortCounters.Snapshot snapshot()
    {
        return PortCounters.of("mlx5_0", 1).read();
    }

    @Test
    void rcRequestsCountedByTheResponder()
    {
        final PortCounters.Snapshot before = snapshot();
        final CompletionQueue cqA = rig.cq(64);
        final CompletionQueue cqB = rig.cq(64);
        final QueuePair a = rig.pd.createQp(QpConfig.builder(QpType.RC, cqA).maxSendWr(16).maxRecvWr(1).build());
        final QueuePair b = rig.pd.createQp(QpConfig.builder(QpType.RC, cqB).maxSendWr(16).maxRecvWr(1).build());
        rig.connect(a, b);
        final MemoryRegion mr = rig.memory(1 << 16);
        final SendQueue sq = SendQueue.of(a, DoorbellMode.AUTO);
        final CqPoller dcq = CqPoller.of(cqA).attach(sq);
        final Completion c = new Completion();
        final long local = mr.address();
        final long remote = mr.address() + 8192;
        final int flags = SendFlags.SIGNALED | SendFlags.RING;
        for (int i = 0; i < 3; i++)
        {
            assertTrue(sq.rdmaWrite(i, local, mr.lkey(), 64, remote, mr.rkey(), flags));
            assertTrue(Rig.await(dcq, c).isSuccess(), c.toString());
        }
        for (int i = 0; i < 2; i++)
        {
            assertTrue(sq.rdmaRead(10 + i, local, mr.lkey(), 64, remote, mr.rkey(), flags));
            assertTrue(Rig.await(dcq, c).isSuccess(), c.toString());
        }
        assertTrue(sq.fetchAdd(20, local, mr.lkey(), remote, mr.rkey(), 1, flags));
        assertTrue(Rig.await(dcq, c).isSuccess(), c.toString());
        final PortCounters.Snapshot d = settle(before, s -> s.rxAtomicRequests(), 1);
        assertEquals(3, d.rxWriteRequests(), d.toString());
        assertEquals(2, d.rxReadRequests(), d.toString());
        assertEquals(1, d.rxAtomicRequests(), d.toString());
        assertEquals(0, d.outOfBuffer(), d.toString());
    }

    @Test
    void rawFramesAndDropsForLackOfReceives()
    {
        Assumptions.assumeTrue(rig.roce, "raw packet QPs need an Ethernet port (the roce execution runs this)");
        final CompletionQueue cq = rig.cq(64);
        final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(1).maxRecvWr(8)
            .maxRecvSge(1).build());
        qp.activate(1);
        final MemoryRegion mr = rig.memory(1 << 16);
        final RecvQueue rq = RecvQueue.of(qp);
        for (int i = 0; i < 2; i++)
        {
            assertTrue(rq.post(i, mr.address() + i * 2048L, mr.lkey(), 2048));
        }
        rq.ring();
        final CqPoller dcq = CqPoller.of(cq).attach(rq);
        rig.closeLater(FlowRule.builder(qp, 1).multicast(GROUP).udpDst(UDP_PORT).create());
        final FrameSender tx = new FrameSender(rig, GROUP, UDP_PORT);
        final int payload = 62;
        final int frameBytes = UdpHeaderTemplate.LENGTH + payload;    // 104: a whole number of 4-byte words
        final PortCounters.Snapshot before = snapshot();
        for (int seq = 0; seq < 5; seq++)
        {
            tx.send(seq, 7000, payload);
        }
        final Completion c = new Completion();
        for (int i = 0; i < 2; i++)
        {
            assertTrue(Rig.await(dcq, c).isSuccess(), c.toString());
            assertEquals(frameBytes, c.byteLen());
        }
        // the three frames without a receive are held (MLX5EMU_ETH_HOLD_MS), then dropped and counted
        final PortCounters.Snapshot d = settle(before, s -> s.outOfBuffer(), 3);
        assertEquals(3, d.outOfBuffer(), d.toString());
        assertEquals(5, d.portXmitPackets(), d.toString());
        assertEquals(5, d.portRcvPackets(), d.toString());
        assertEquals(5, d.multicastXmitPackets(), d.toString());
        assertEquals(5, d.multicastRcvPackets(), d.toString());
        assertEquals(0, d.unicastXmitPackets(), d.toString());
        assertEquals(5 * frameBytes / 4, d.portXmitData(), d.toString());
        assertEquals(5 * frameBytes / 4, d.portRcvData(), d.toString());
        Rig.assertEmpty(dcq, c);
    }

    @Test
    void badNamesAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> PortCounters.of("../mlx5_0", 1));
        assertThrows(IllegalArgumentException.class, () -> PortCounters.of("mlx5_0", 0));
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> PortCounters.of("mlx5_9", 1));
        assertTrue(e.getMessage().contains("no counters for mlx5_9 port 1"), e.getMessage());
        assertEquals(-1, snapshot().value("no_such_counter"));
    }

    /** The change since {@code before} once {@code which} reached {@code want} (10 s at most), read again later. */
    private PortCounters.Snapshot settle(final PortCounters.Snapshot before,
        final ToLongFunction<PortCounters.Snapshot> which, final long want)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (which.applyAsLong(snapshot().since(before)) < want && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        return snapshot().since(before);
    }
}
