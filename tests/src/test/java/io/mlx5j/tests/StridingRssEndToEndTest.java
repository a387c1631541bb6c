// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.IndirectionTable;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RxHash;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Frames sent through the emulated device land in a striding RQ and in the WQs of an RSS QP, decoded by
 * {@link CqPoller}: every frame's bytes are compared in place (the completion's frame address, no copy) with what was
 * sent; stride indexes, stride counts, fillers and WQE releases follow the placement DPDK's mlx5 PMD decodes (and
 * emulator/test/engine/t_mprq_eth.c checks from C); the RSS hash equals a Toeplitz computed here (checked against
 * the Microsoft verification vectors), and each frame reaches the WQ its hash selects, each WQ polled by its own
 * thread.
 */
@Tag("links")
class StridingRssEndToEndTest
{
    private static final int GROUP = 0xef010207;     // 239.1.2.7
    private static final int PORT = 31007;
    private static final int LOG_STRIDE = 6;         // 64-byte strides
    private static final int LOG_STRIDES = 3;        // 8 per WQE
    private static final int WQES = 8;

    private Rig rig;

    @BeforeEach
    void open()
    {
        rig = new Rig();
        Assumptions.assumeTrue(rig.roce, "WQs and RSS need an Ethernet port (the roce execution runs this)");
    }

    @AfterEach
    void close()
    {
        rig.close();
    }

    @Test
    void toeplitzHereIsMicrosofts()
    {
        // 66.9.149.187:2794 -> 161.142.100.80:1766 (Microsoft's RSS verification suite)
        final byte[] key = RxHash.defaultKey();
        final int src = 66 << 24 | 9 << 16 | 149 << 8 | 187;
        final int dst = 161 << 24 | 142 << 16 | 100 << 8 | 80;
        assertEquals(0x51ccc178, FrameSender.toeplitz(key, FrameSender.ipv4UdpTuple(src, dst, 2794, 1766)));
        final byte[] ipOnly = new byte[8];
        System.arraycopy(FrameSender.ipv4UdpTuple(src, dst, 0, 0), 0, ipOnly, 0, 8);
        assertEquals(0x323e8fc2, FrameSender.toeplitz(key, ipOnly));
    }

    @Test
    void stridingRqPacksFramesConsumesFillersAndReleasesWqes()
    {
        for (final boolean shift : new boolean[] {false, true})
        {
            final CompletionQueue cq = rig.cq(256);
            final WorkQueue wq = rig.pd.createWq(WorkQueue.builder(cq).maxWr(WQES)
                .striding(LOG_STRIDE, LOG_STRIDES, shift)).ready();
            final IndirectionTable table = rig.context.createIndirectionTable(List.of(wq));
            final QueuePair rss = rig.pd.createRssQp(table, RxHash.IPV4_UDP, RxHash.defaultKey());
            assertTrue(rss.isRss());
            final StridingRecvQueue q = StridingRecvQueue.of(wq, false);
            assertEquals(512, q.bufferBytes());
            final MemoryRegion mr = rig.memory(1 << 16);
            mr.memory().fill((byte) 0xee);
            for (int i = 0; i < WQES; i++)
            {
                assertTrue(q.post(100 + i, mr.address() + i * 512L, mr.lkey()));
            }
            assertFalse(q.post(999, mr.address(), mr.lkey()), "all WQEs outstanding");
            assertEquals(WQES, q.ring());
            final CqPoller dcq = CqPoller.of(cq).attach(q);
            final FrameSender tx = new FrameSender(rig, GROUP, PORT);
            try (FlowRule rule = FlowRule.builder(rss, 1).multicast(GROUP).udpDst(PORT).tag(0x5a).create())
            {
                // frame sizes as t_mprq_eth: 1 + 2 + 5 strides fill WQE 0; 4 strides of WQE 1, then a 5-stride frame
                // does not fit the 4 left: a filler releases WQE 1 and the frame starts WQE 2, then two 1-stride frames
                final int[] sizes = {60, 100, 300, 200, 300, 60, 60};
                final int[] wqe = {0, 0, 0, 1, 2, 2, 2};
                final int[] stride = {0, 1, 3, 0, 0, 5, 6};
                final int[] strides = {1, 2, 5, 4, 5, 1, 1};
                final int[] released = {0, 0, 1, 0, 1, 0, 0};
                final Completion c = new Completion();
                for (int k = 0; k < sizes.length; k++)
                {
                    final byte[] sent = tx.send(k, 5000 + k, sizes[k] - UdpHeaderTemplate.LENGTH);
                    Rig.await(dcq, c);
                    final String what = "frame " + k + (shift ? " (two-byte shift)" : "") + ": " + c;
                    assertTrue(c.isSuccess(), what);
                    assertEquals(WcOpcode.RECV, c.opcode(), what);
                    assertEquals(100 + wqe[k], c.wrId(), "the WQE the frame landed in " + what);
                    assertEquals(stride[k], c.strideIndex(), "stride index " + what);
                    assertEquals(strides[k], c.strideCount(), "strides " + what);
                    assertEquals(released[k], c.releasedWqes(), "released WQEs " + what);
                    assertEquals(sizes[k], c.byteLen(), what);
                    assertEquals(0x5a, c.flowTag(), what);
                    final long at = mr.address() + wqe[k] * 512L + stride[k] * 64L + (shift ? 2 : 0);
                    assertEquals(at, c.frameAddress(), "the frame in place " + what);
                    assertArrayEquals(sent, MemorySegment.ofAddress(c.frameAddress()).reinterpret(sizes[k])
                        .toArray(ValueLayout.JAVA_BYTE), "bytes " + what);
                    if (shift)
                    {
                        assertEquals((byte) 0xee, MemorySegment.ofAddress(at - 2).reinterpret(2)
                            .get(ValueLayout.JAVA_BYTE, 0), "the two shift bytes stay unwritten " + what);
                    }
                    final byte[] ipTuple = FrameSender.ipv4UdpTuple(FrameSender.SRC_IP, GROUP, 5000 + k, PORT);
                    assertEquals(FrameSender.toeplitz(RxHash.defaultKey(), ipTuple), c.rssHash(), "RSS hash " + what);
                    assertEquals(0xa5, c.rssHashType(), "hash type: IPv4 src/dst (1, 1), UDP src/dst (2, 2) " + what);
                }
                assertEquals(0, dcq.poll(c), "nothing else (the filler is not reported)");
                assertEquals(WQES - 2, q.outstanding(), "WQEs 0 and 1 released, not reposted");
            }
            rss.close();
            table.close();
            wq.close();
            cq.close();
        }
    }

    @Test
    void recyclingStridingRqCarriesManyFramesOfEverySize()
    {
        final CompletionQueue cq = rig.cq(256);
        final WorkQueue wq = rig.pd.createWq(WorkQueue.builder(cq).maxWr(4).striding(LOG_STRIDE, LOG_STRIDES, true))
            .ready();
        final QueuePair rss = rig.pd.createRssQp(rig.context.createIndirectionTable(List.of(wq)), RxHash.IPV4_UDP,
            RxHash.defaultKey());
        final StridingRecvQueue q = StridingRecvQueue.of(wq, true);
        final MemoryRegion mr = rig.memory(1 << 16);
        for (int i = 0; i < 4; i++)
        {
            assertTrue(q.post(i, mr.address() + i * 512L, mr.lkey()));
        }
        q.ring();
        final CqPoller dcq = CqPoller.of(cq).attach(q);
        final FrameSender tx = new FrameSender(rig, GROUP, PORT);
        try (FlowRule rule = FlowRule.builder(rss, 1).multicast(GROUP).udpDst(PORT).create())
        {
            final Completion c = new Completion();
            int stridesUsed = 0;
            int releases = 0;
            for (int k = 0; k < 300; k++)
            {
                final int len = 60 + (k * 37) % 451;          // 60..510: with the shift, up to the whole WQE
                final byte[] sent = tx.send(k, 6000 + k % 50, len - UdpHeaderTemplate.LENGTH);
                Rig.await(dcq, c);
                assertTrue(c.isSuccess(), c.toString());
                assertEquals(len, c.byteLen(), "frame " + k);
                assertEquals((len + 2 + 63) / 64, c.strideCount(), "frame " + k);
                assertArrayEquals(sent, MemorySegment.ofAddress(c.frameAddress()).reinterpret(len)
                    .toArray(ValueLayout.JAVA_BYTE), "frame " + k);
                stridesUsed += c.strideCount();
                releases += c.releasedWqes();
                assertEquals(4, q.outstanding(), "recycled at once");
            }
            assertTrue(releases > 150, releases + " WQEs released and reposted for " + stridesUsed + " strides");
        }
    }

    @Test
    void closingAWqsCqClosesWhatDependsOnItAndRefusalsNameTheCall()
    {
        final CompletionQueue cq = rig.cq(64);
        final WorkQueue wq = rig.pd.createWq(WorkQueue.builder(cq).maxWr(8).striding(LOG_STRIDE, LOG_STRIDES, false))
            .ready();
        final IndirectionTable table = rig.context.createIndirectionTable(List.of(wq, wq));
        final QueuePair rss = rig.pd.createRssQp(table, RxHash.IPV4_UDP, RxHash.defaultKey());
        final FlowRule rule = FlowRule.builder(rss, 1).multicast(GROUP).udpDst(PORT).create();
        final StridingRecvQueue q = StridingRecvQueue.of(wq, true);
        assertThrows(IllegalStateException.class, rss::rings, "an RSS QP has no rings");
        cq.close();     // the kernel would refuse (EBUSY) while the WQ uses it: the WQ, table, QP and rule go first
        assertTrue(rule.isClosed() && rss.isClosed() && table.isClosed() && wq.isClosed());
        final IllegalStateException closed = assertThrows(IllegalStateException.class, () -> q.post(0, 0, 0));
        assertTrue(closed.getMessage().contains("closed") || closed.getMessage().contains("Already closed"),
            closed.getMessage());
        // strides of 2^5 bytes are below the device's minimum (2^6): libmlx5 refuses with EINVAL
        final CompletionQueue cq2 = rig.cq(64);
        final VerbsException e = assertThrows(VerbsException.class,
            () -> rig.pd.createWq(WorkQueue.builder(cq2).maxWr(8).striding(5, LOG_STRIDES, false)));
        assertTrue(e.getMessage().contains("mlx5dv_create_wq") && e.getMessage().contains("2^5"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> rig.context.createIndirectionTable(List.of()), "a table of 0 entries");
        final WorkQueue plain = rig.pd.createWq(WorkQueue.builder(cq2).maxWr(8));
        assertThrows(IllegalArgumentException.class,
            () -> StridingRecvQueue.of(plain, false), "a plain WQ is not striding");
        final RecvQueue prq = RecvQueue.of(plain.ready());
        final WorkQueue other = rig.pd.createWq(WorkQueue.builder(cq2).maxWr(8).striding(LOG_STRIDE, LOG_STRIDES,
            false));
        final CqPoller dcq = CqPoller.of(cq2).attach(prq);
        assertThrows(IllegalArgumentException.class,
            () -> dcq.attach(StridingRecvQueue.of(other, false)), "one receive queue per CQ of a WQ");
    }

    /**
     * Four WQs behind an RSS QP (two plain, two striding), each with its own CQ polled by its own thread; 400 frames
     * from 400 source ports. Each frame must arrive once, at the WQ its Toeplitz hash selects, with that hash and the
     * bytes that were sent.
     */
    @Test
    void rssSpreadsFlowsOverWqsEachPolledByItsOwnThread() throws Exception
    {
        final int frames = 400;
        final int n = 4;
        final byte[] key = RxHash.defaultKey();
        final MemoryRegion mr = rig.memory(4 << 20);
        final List<WorkQueue> wqs = new ArrayList<>();
        final List<CompletionQueue> cqs = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            final CompletionQueue cq = rig.cq(1024);
            cqs.add(cq);
            final WorkQueue.Builder b = WorkQueue.builder(cq).maxWr(64);
            wqs.add(rig.pd.createWq(i % 2 == 0 ? b : b.striding(LOG_STRIDE, LOG_STRIDES, false)).ready());
        }
        final QueuePair rss = rig.pd.createRssQp(rig.context.createIndirectionTable(wqs), RxHash.IPV4_UDP, key);
        final int[] expectWq = new int[frames];
        final int[] expectHash = new int[frames];
        final int[] perWq = new int[n];
        final int payload = 60;
        for (int s = 0; s < frames; s++)
        {
            expectHash[s] = FrameSender.toeplitz(key, FrameSender.ipv4UdpTuple(FrameSender.SRC_IP, GROUP, 20000 + s,
                PORT));
            expectWq[s] = expectHash[s] & (n - 1);
            perWq[expectWq[s]]++;
        }
        for (int i = 0; i < n; i++)
        {
            assertTrue(perWq[i] > 50, "the hash spreads: " + java.util.Arrays.toString(perWq));
        }
        final AtomicInteger received = new AtomicInteger();
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        final byte[][] sent = new byte[frames][];
        final List<Thread> threads = new ArrayList<>();
        final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(n);
        for (int i = 0; i < n; i++)
        {
            final int w = i;
            final long base = mr.address() + w * (1L << 20);
            threads.add(Thread.ofPlatform().name("wq-" + w).start(() ->
            {
                try
                {
                    // the queue and its CqPoller are created, posted and polled on this thread only
                    final CqPoller dcq = CqPoller.of(cqs.get(w));
                    RecvQueue plain = null;
                    if (w % 2 == 0)
                    {
                        plain = RecvQueue.of(wqs.get(w));
                        for (int k = 0; k < 64; k++)
                        {
                            plain.post(k, base + k * 2048L, mr.lkey(), 2048);
                        }
                        plain.ring();
                        dcq.attach(plain);
                    }
                    else
                    {
                        final StridingRecvQueue q = StridingRecvQueue.of(wqs.get(w), true);
                        for (int k = 0; k < 64; k++)
                        {
                            q.post(k, base + k * 512L, mr.lkey());
                        }
                        q.ring();
                        dcq.attach(q);
                    }
                    ready.countDown();
                    final Completion c = new Completion();
                    for (int got = 0; got < perWq[w]; got++)
                    {
                        Rig.await(dcq, c);
                        final int seq = MemorySegment.ofAddress(c.frameAddress() + UdpHeaderTemplate.LENGTH)
                            .reinterpret(4).get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0);
                        if (seq < 0 || seq >= frames || expectWq[seq] != w || expectHash[seq] != c.rssHash()
                            || c.byteLen() != UdpHeaderTemplate.LENGTH + payload)
                        {
                            problems.add("WQ " + w + " got seq " + seq + " hash 0x" + Integer.toHexString(c.rssHash())
                                + ": " + c);
                        }
                        else
                        {
                            while (sent[seq] == null)
                            {
                                Thread.onSpinWait();    // the sender publishes it before releasing the next frame
                            }
                            final byte[] bytes = MemorySegment.ofAddress(c.frameAddress()).reinterpret(c.byteLen())
                                .toArray(ValueLayout.JAVA_BYTE);
                            if (!java.util.Arrays.equals(sent[seq], bytes))
                            {
                                problems.add("WQ " + w + " seq " + seq + ": bytes differ");
                            }
                        }
                        if (plain != null)
                        {
                            plain.post(c.wrId(), c.frameAddress(), mr.lkey(), 2048);
                            plain.ring();
                        }
                        received.incrementAndGet();
                    }
                    assertEquals(0, dcq.poll(c), "WQ " + w + ": nothing beyond its frames");
                }
                catch (final Throwable t)
                {
                    problems.add("WQ " + w + ": " + t);
                    ready.countDown();
                }
            }));
        }
        ready.await();
        final FrameSender tx = new FrameSender(rig, GROUP, PORT);
        try (FlowRule rule = FlowRule.builder(rss, 1).multicast(GROUP).udpDst(PORT).create())
        {
            for (int s = 0; s < frames && problems.isEmpty(); s++)
            {
                final byte[] b = tx.send(s, 20000 + s, payload);
                synchronized (sent)
                {
                    sent[s] = b;
                }
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (s + 1 - received.get() > 16)
                {
                    if (System.nanoTime() > deadline)
                    {
                        fail("receivers stalled at " + received.get() + " of " + (s + 1) + ": " + problems);
                    }
                    Thread.onSpinWait();
                }
            }
            for (final Thread t : threads)
            {
                t.join(30_000);
                assertFalse(t.isAlive(), t + " did not finish: " + received.get() + " of " + frames + " " + problems);
            }
        }
        assertTrue(problems.isEmpty(), problems.toString());
        assertEquals(frames, received.get());
    }
}
