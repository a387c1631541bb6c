// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
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
 * The README's Java snippet, compiled and run on the emulated device: {@link #readmeSnippet()} holds it verbatim
 * between the markers, plus lines ending in {@code // test only} (the checks, and the escape of the memory for
 * after the close), which {@link #theReadmeShowsExactlyThisCode()} strips before comparing with every {@code java}
 * block of README.md. A change to either side fails until the other follows.
 */
class ReadmeExampleTest
{
    private static final String BEGIN = "// README snippet begins";
    private static final String END = "// README snippet ends";
    private static final String TEST_ONLY = "// test only";

    private MemoryRegion closedMr;      // test only (state kept for the checks after the try)
    private MemorySegment freedBuf;     // test only

    @Test
    void readmeSnippet()
    {
        // README snippet begins
        try (Context ctx = Context.open("mlx5_0");
             ProtectionDomain pd = ctx.allocPd();
             Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(1 << 20, 4096);
            for (int i = 0; i < 64; i++) { buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1)); } // test only
            // tied to the arena: closing it deregisters the MR before the memory is freed
            MemoryRegion mr = pd.register(arena, buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            CompletionQueue cq = ctx.createCq(256);
            QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            // INIT/RTR/RTS. Here the QP is its own peer on an IB port; between hosts, exchange PeerInfo over TCP
            // (toPingpongMessage, ibv_rc_pingpong's text; see the tool's io.mlx5j.tool.oob) and write to the peer's buffer instead
            PortAttributes port = ctx.queryPort(1);
            PeerInfo peer = PeerInfo.of(port.lid(), qp.qpn(), 0, ctx.queryGid(1, 0));
            qp.connect(1, mr.access(), 0, port.activeMtu(), peer, AddressVector.ib(1, port.lid(), 0), 0);
            long remoteAddr = mr.address() + 4096;
            int remoteRkey = mr.rkey();
            SendQueue sq = SendQueue.of(qp, DoorbellMode.AUTO).signalEvery(64);
            CqPoller dcq = CqPoller.of(cq).attach(sq);
            Completion wc = new Completion();                       // one reusable view, never one per CQE
            sq.rdmaWrite(42, mr.address(), mr.lkey(), 64, remoteAddr, remoteRkey, SendFlags.SIGNALED | SendFlags.RING);
            while (dcq.poll(wc) == 0) { Thread.onSpinWait(); }
            assertTrue(wc.isSuccess() && wc.wrId() == 42 && wc.opcode() == WcOpcode.RDMA_WRITE, wc.toString()); // test only
            assertEquals(-1L, buf.asSlice(0, 64).mismatch(buf.asSlice(4096, 64)), "the written bytes"); // test only
            closedMr = mr; freedBuf = buf; // test only
        }   // closes the arena (the MR first), then the PD (the QP first), then the context (the CQ)
        // README snippet ends
        assertTrue(closedMr.isClosed(), "the MR outlived its arena");
        assertTrue(!freedBuf.scope().isAlive());
    }

    @Test
    void theReadmeShowsExactlyThisCode() throws IOException
    {
        final String snippet = snippetOf("ReadmeExampleTest.java");
        final String readme = Files.readString(Path.of("../README.md"));
        final Matcher blocks = Pattern.compile("```java\n(.*?)```\n", Pattern.DOTALL).matcher(readme);
        final List<String> found = new ArrayList<>();
        while (blocks.find())
        {
            found.add(blocks.group(1));
        }
        // every java block of the README is a test: this class's snippet, then DcReadmeExampleTest's (the rdma_cm
        // example is in docs/rdma-cm.md, io.mlx5j.cm.ReadmeExampleTest's)
        assertEquals(List.of(snippet, snippetOf("DcReadmeExampleTest.java")), found,
            "README.md's java blocks differ from the tests' code");
    }

    /** The code between the markers of a test class of this package, without its test-only lines, unindented. */
    static String snippetOf(final String file) throws IOException
    {
        final String source = Files.readString(Path.of("src/test/java/io/mlx5j/direct/" + file));
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
        return String.join("\n", lines.stream().map(l -> l.substring(Math.min(indent, l.length())))
            .toList()) + "\n";
    }
}
