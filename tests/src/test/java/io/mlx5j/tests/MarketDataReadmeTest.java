// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.FlowRule;
import io.mlx5j.raw.NicClock;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The market-data guide's snippet (the {@code java market-data} block of docs/market-data.md), compiled and run on
 * the emulated Ethernet port: {@link #snippet()} holds it verbatim between the markers plus lines ending in {@code // test only}, which
 * {@link #theGuideShowsExactlyThisCode()} strips before comparing.
 */
@Tag("links")
class MarketDataReadmeTest
{
    private static final String BEGIN = "// guide market-data snippet begins";
    private static final String END = "// guide market-data snippet ends";
    private static final String TEST_ONLY = "// test only";

    @Test
    void snippet()
    {
        try (Context probe = Context.open("mlx5_0")) // test only
        { // test only
            Assumptions.assumeTrue(probe.queryPort(1).isEthernet(), "raw Ethernet needs an Ethernet port"); // test only
        } // test only
        // guide market-data snippet begins
        try (Context ctx = Context.open("mlx5_0");
             ProtectionDomain pd = ctx.allocPd();
             Arena arena = Arena.ofShared();
             NicClock clock = NicClock.of(ctx)) {
            MemoryRegion mr = pd.register(arena, arena.allocate(1 << 20, 4096), Access.LOCAL_WRITE);
            int group = 0xef010101, port = 31001;                   // 239.1.1.1:31001
            // subscriber: a raw QP, receive buffers, and a flow rule that joins the group
            CompletionQueue rcq = ctx.createCq(256);
            QueuePair rx = pd.createQp(QpConfig.builder(QpType.RAW_PACKET, rcq).build());
            rx.activate(1);
            RecvQueue rq = RecvQueue.of(rx);
            for (int i = 0; i < 32; i++) { rq.post(i, mr.address() + 65536 + i * 2048L, mr.lkey(), 2048); }
            rq.ring();
            CqPoller rxCq = CqPoller.of(rcq).attach(rq);
            FlowRule rule = FlowRule.builder(rx, 1).multicast(group).udpDst(port).tag(7).create();
            // publisher: a header template patched per message, checksums by the NIC
            CompletionQueue scq = ctx.createCq(256);
            QueuePair tx = pd.createQp(QpConfig.builder(QpType.RAW_PACKET, scq).maxSendSge(2).build());
            tx.activate(1);
            RawSendQueue sq = RawSendQueue.of(tx, DoorbellMode.AUTO).signalEvery(64);
            CqPoller txCq = CqPoller.of(scq).attach(sq.queue());
            UdpHeaderTemplate hdr = new UdpHeaderTemplate(mr.memory().asSlice(0, 64))
                .srcMac(0x020000000001L).srcIp(0x0a000001).srcPort(40000).multicast(group, port);
            MemorySegment payload = mr.memory().asSlice(4096, 16);
            payload.set(ValueLayout.JAVA_LONG, 0, 12345L);          // e.g. a sequence number
            hdr.prepare(16, 1);                                     // lengths, IP id, IPv4 header checksum
            sq.send(1, hdr, mr.lkey(), payload.address(), mr.lkey(), 16, RawSendQueue.NO_VLAN,
                SendFlags.INLINE | SendFlags.IP_CSUM | SendFlags.SIGNALED | SendFlags.RING);
            Completion wc = new Completion();
            while (txCq.poll(wc) == 0) { Thread.onSpinWait(); }
            while (rxCq.poll(wc) == 0) { Thread.onSpinWait(); }
            long frame = wc.frameAddress();                         // the frame, in place in the receive buffer
            long seq = MemorySegment.ofAddress(frame + UdpHeaderTemplate.LENGTH).reinterpret(8)
                .get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            long nicNanos = clock.toNanos(wc.timestamp());          // NIC receive time, ns since the epoch
            assertTrue(wc.isSuccess() && wc.flowTag() == 7 && wc.ipCsumOk(), wc.toString()); // test only
            assertEquals(12345L, seq); // test only
            assertEquals(60, wc.byteLen(), "58 bytes, padded to the 60-byte Ethernet minimum"); // test only
            assertTrue(Math.abs(nicNanos - System.currentTimeMillis() * 1_000_000L) < 1_000_000_000L); // test only
            rule.close();                                           // (closing rx would close it too)
        }
        // guide market-data snippet ends
    }

    @Test
    void theGuideShowsExactlyThisCode() throws IOException
    {
        final String source = Files.readString(Path.of("src/test/java/io/mlx5j/tests/MarketDataReadmeTest.java"));
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
        final Matcher block = Pattern.compile("```java market-data\n(.*?)```\n", Pattern.DOTALL).matcher(guide);
        assertTrue(block.find(), "docs/market-data.md has no java market-data block");
        assertEquals(snippet, block.group(1), "docs/market-data.md's market-data block differs from " + getClass());
        assertTrue(!block.find(), "one market-data block");
    }
}
