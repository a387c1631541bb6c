// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RxHash;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The market-data guide's striding RQ / RSS snippet (the {@code java striding} block of docs/market-data.md),
 * compiled and run on the emulated Ethernet port like {@link MarketDataReadmeTest}: lines ending in
 * {@code // test only} (which send the frames and check what arrived) are stripped before the comparison.
 */
@Tag("links")
class StridingReadmeTest
{
    private static final String BEGIN = "// guide striding snippet begins";
    private static final String END = "// guide striding snippet ends";
    private static final String TEST_ONLY = "// test only";

    @Test
    void snippet()
    {
        try (Context probe = Context.open("mlx5_0")) // test only
        { // test only
            Assumptions.assumeTrue(probe.queryPort(1).isEthernet(), "raw Ethernet needs an Ethernet port"); // test only
        } // test only
        final byte[][] sent = new byte[20][]; // test only
        final int[] perWq = new int[2]; // test only
        // guide striding snippet begins
        try (Context ctx = Context.open("mlx5_0");
             ProtectionDomain pd = ctx.allocPd();
             Arena arena = Arena.ofShared()) {
            MemoryRegion mr = pd.register(arena, arena.allocate(1 << 20, 4096), Access.LOCAL_WRITE);
            int group = 0xef010102, port = 31002;                   // 239.1.1.2:31002
            // two WQs, each a striding RQ (16 WQEs of 32 strides of 64 bytes) with its own CQ, behind one RSS QP
            List<WorkQueue> wqs = List.of(
                pd.createWq(WorkQueue.builder(ctx.createCq(1024)).maxWr(16).striding(6, 5, true)).ready(),
                pd.createWq(WorkQueue.builder(ctx.createCq(1024)).maxWr(16).striding(6, 5, true)).ready());
            QueuePair rss = pd.createRssQp(ctx.createIndirectionTable(wqs), RxHash.IPV4_UDP, RxHash.defaultKey());
            FlowRule.builder(rss, 1).multicast(group).udpDst(port).create();
            // per WQ (each may live on a thread of its own): post the buffers, attach the queue to the WQ's CQ
            StridingRecvQueue[] rqs = new StridingRecvQueue[2];
            CqPoller[] cqs = new CqPoller[2];
            for (int i = 0; i < 2; i++) {
                rqs[i] = StridingRecvQueue.of(wqs.get(i), true);    // recycling: a used-up WQE is posted again
                for (int k = 0; k < 16; k++) { rqs[i].post(k, mr.address() + (i * 16 + k) * 2048L, mr.lkey()); }
                rqs[i].ring();
                cqs[i] = CqPoller.of(wqs.get(i).cq()).attach(rqs[i]);
            }
            FrameSender tx = new FrameSender(pd, arena, group, port); // test only
            for (int s = 0; s < 20; s++) { sent[s] = tx.send(s, 40000 + s, 100 + s); } // test only
            Completion wc = new Completion();
            for (int got = 0; got < 20; ) {
                for (int i = 0; i < 2; i++) {
                    if (cqs[i].poll(wc) == 1) {
                        got++;
                        long frame = wc.frameAddress();             // in place: stride wc.strideIndex() of a WQE
                        int len = wc.byteLen(), hash = wc.rssHash(); // the Toeplitz hash that chose WQ i
                        int seq = MemorySegment.ofAddress(frame + UdpHeaderTemplate.LENGTH).reinterpret(4).get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0); // test only
                        assertArrayEquals(sent[seq], MemorySegment.ofAddress(frame).reinterpret(len).toArray(ValueLayout.JAVA_BYTE)); // test only
                        assertEquals(i, hash & 1, "the hash's low bit picks the WQ"); // test only
                        assertEquals(2, (frame - mr.address()) % 64, "two bytes into a stride"); // test only
                        perWq[i]++; // test only
                    }
                }
            }
        }
        // guide striding snippet ends
        assertTrue(perWq[0] > 0 && perWq[1] > 0, "both WQs received: " + perWq[0] + ", " + perWq[1]);
    }

    @Test
    void theGuideShowsExactlyThisCode() throws IOException
    {
        final String source = Files.readString(Path.of("src/test/java/io/mlx5j/tests/StridingReadmeTest.java"));
        final int begin = source.indexOf('\n', source.indexOf(BEGIN + "\n")) + 1;
        final int end = source.lastIndexOf('\n', source.indexOf(END + "\n"));
        final List<String> lines = new ArrayList<>();
        for (final String line : source.substring(begin, end).split("\n"))
        {
            if (!line.endsWith(TEST_ONLY))
            {
                lines.add(line);
            }
        }
        final int indent = lines.stream().filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        final String snippet = String.join("\n", lines.stream().map(l -> l.substring(Math.min(indent, l.length())))
            .toList()) + "\n";
        final String guide = Files.readString(Path.of("../docs/market-data.md"));
        final Matcher block = Pattern.compile("```java striding\n(.*?)```\n", Pattern.DOTALL).matcher(guide);
        assertTrue(block.find(), "docs/market-data.md has no java striding block");
        assertEquals(snippet, block.group(1), "docs/market-data.md's striding block differs from " + getClass());
        assertTrue(!block.find(), "one striding block");
    }
}
