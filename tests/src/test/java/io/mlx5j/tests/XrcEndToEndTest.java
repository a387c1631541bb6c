// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.verbs.XrcDomain;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.mlx5j.verbs.VerbsException;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.mlx5j.tests.Rig.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * XRC from end to end on the emulated device, Java on both sides: an XRC INI QP in one context and PD sends to an
 * XRC TGT QP of another context's XRC domain, whose two XRC SRQs (one CQ) take the messages each WQE names
 * ({@code SendQueue.xrcSrqn}); the poller finds the SRQ of each CQE by its srqn_uidx. Completions are checked field
 * by field (the TGT QP's number, the SRQ receive's wr_id, opcode, byte_len, immediate) and data byte for byte; the
 * engine's strict validator must count no violation. Tagged "links": InfiniBand and Ethernet (RoCE).
 */
@Tag("links")
class XrcEndToEndTest
{
    private Rig initiator;
    private Rig target;
    private final Completion c = new Completion();
    private long violationsBefore;

    private XrcDomain xrcd;
    private CompletionQueue cqT;
    private SharedReceiveQueue srq1;
    private SharedReceiveQueue srq2;
    private QueuePair tgt;
    private QueuePair ini;
    private SendQueue sq;
    private SrqRecvQueue rq1;
    private SrqRecvQueue rq2;
    private CqPoller dcqI;
    private CqPoller dcqT;
    private MemoryRegion mrI;
    private MemoryRegion mrT;

    @BeforeEach
    void open()
    {
        violationsBefore = EmulatedDevice.strictViolations();
        initiator = new Rig();
        target = new Rig();
        xrcd = target.context.openXrcDomain();
        cqT = target.cq(64);
        srq1 = target.pd.createXrcSrq(xrcd, cqT, 16, 1);
        srq2 = target.pd.createXrcSrq(xrcd, cqT, 16, 1);
        tgt = xrcd.createTgtQp();
        final CompletionQueue cqI = initiator.cq(64);
        ini = initiator.pd.createQp(QpConfig.builder(QpType.XRC_SEND, cqI).maxRecvWr(0).maxRecvSge(0).maxSendSge(2)
            .build());
        final int mtu = initiator.port.activeMtu();
        ini.connect(1, 0, 0, mtu, target.peer(tgt, 0x200), initiator.path(), 0x100);
        tgt.connect(1, Access.ALL_REMOTE, 0, mtu, initiator.peer(ini, 0x100), target.path(), 0x200);
        sq = SendQueue.of(ini, DoorbellMode.AUTO);
        dcqI = CqPoller.of(cqI).attach(sq);
        rq1 = SrqRecvQueue.of(srq1);
        rq2 = SrqRecvQueue.of(srq2);
        dcqT = CqPoller.of(cqT).attach(rq1).attach(rq2);
        mrI = initiator.memory(1 << 16);
        mrT = target.memory(1 << 16);
        Rig.fill(mrI.memory(), 0, 1 << 16, 5);
    }

    @AfterEach
    void close()
    {
        initiator.close();
        target.close();
        assertEquals(violationsBefore, EmulatedDevice.strictViolations(),
            "emulator strict-mode violations (see stderr)");
    }

    private static byte[] bytes(final MemorySegment s, final long off, final int len)
    {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    private void expectSend(final long wrId, final int opcode)
    {
        await(dcqI, c);
        assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
        assertEquals(wrId, c.wrId(), c::toString);
        assertEquals(opcode, c.opcode(), c::toString);
        assertEquals(ini.qpn(), c.qpn(), c::toString);
    }

    /** A receive on an XRC SRQ: the completion names the TGT QP, and carries the SRQ WQE's wr_id. */
    private void expectRecv(final long wrId, final int opcode, final int byteLen, final int wcFlags, final int imm)
    {
        await(dcqT, c);
        assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
        assertEquals(wrId, c.wrId(), c::toString);
        assertEquals(opcode, c.opcode(), c::toString);
        assertEquals(byteLen, c.byteLen(), c::toString);
        assertEquals(tgt.qpn(), c.qpn(), c::toString);
        assertEquals(wcFlags, c.wcFlags() & (WcOpcode.WC_WITH_IMM | WcOpcode.WC_WITH_INV), c::toString);
        if ((wcFlags & WcOpcode.WC_WITH_IMM) != 0)
        {
            assertEquals(imm, c.imm(), c::toString);
        }
    }

    @Test
    void sendsAndWritesReachTheSrqEachWqeNames()
    {
        assertTrue(srq1.isXrc() && srq1.srqNum() != srq2.srqNum(), srq1 + " " + srq2);
        assertEquals(QpType.XRC_RECV, tgt.type());
        final long t = mrT.address();
        final long s = mrI.address();
        for (int i = 0; i < 4; i++)
        {
            assertTrue(rq1.post(0x1000 + i, t + i * 1024L, mrT.lkey(), 1024));
            assertTrue(rq2.post(0x2000 + i, t + 8192 + i * 1024L, mrT.lkey(), 1024));
        }
        assertEquals(4, rq1.ring());
        assertEquals(4, rq2.ring());

        // SEND into SRQ 1
        sq.xrcSrqn(srq1.srqNum());
        assertTrue(sq.send(1, s, mrI.lkey(), 1000, SendFlags.SIGNALED | SendFlags.RING));
        expectSend(1, WcOpcode.SEND);
        expectRecv(0x1000, WcOpcode.RECV, 1000, 0, 0);
        assertArrayEquals(bytes(mrI.memory(), 0, 1000), bytes(mrT.memory(), 0, 1000));

        // SEND with immediate into SRQ 2: the SRQ is chosen per WQE
        sq.xrcSrqn(srq2.srqNum());
        assertTrue(sq.sendImm(2, s + 2000, mrI.lkey(), 300, 0xfeed0002, SendFlags.SIGNALED | SendFlags.RING));
        expectSend(2, WcOpcode.SEND);
        expectRecv(0x2000, WcOpcode.RECV, 300, WcOpcode.WC_WITH_IMM, 0xfeed0002);
        assertArrayEquals(bytes(mrI.memory(), 2000, 300), bytes(mrT.memory(), 8192, 300));

        // RDMA WRITE: placed in the target PD's memory, no receive consumed, no target completion
        assertTrue(sq.rdmaWrite(3, s + 4000, mrI.lkey(), 2048, t + 32768, mrT.rkey(),
            SendFlags.SIGNALED | SendFlags.RING));
        expectSend(3, WcOpcode.RDMA_WRITE);
        assertArrayEquals(bytes(mrI.memory(), 4000, 2048), bytes(mrT.memory(), 32768, 2048));
        Rig.assertEmpty(dcqT, c);

        // RDMA WRITE with immediate: consumes a WQE of the SRQ named, completes with the TGT QP's number
        sq.xrcSrqn(srq1.srqNum());
        assertTrue(sq.rdmaWriteImm(4, s + 7000, mrI.lkey(), 500, t + 40000, mrT.rkey(), 0x0badcafe,
            SendFlags.SIGNALED | SendFlags.RING));
        expectSend(4, WcOpcode.RDMA_WRITE);
        expectRecv(0x1001, WcOpcode.RECV_RDMA_WITH_IMM, 500, WcOpcode.WC_WITH_IMM, 0x0badcafe);
        assertArrayEquals(bytes(mrI.memory(), 7000, 500), bytes(mrT.memory(), 40000, 500));

        // staged form, two SGEs, alternating SRQs: each completion on its own SRQ's next WQE
        for (int i = 0; i < 3; i++)
        {
            final SharedReceiveQueue to = (i & 1) == 0 ? srq2 : srq1;
            sq.xrcSrqn(to.srqNum());
            assertTrue(sq.begin(10 + i, Mlx5Opcode.MLX5_OPCODE_SEND, SendFlags.SIGNALED)
                .sge(s + 100 * i, mrI.lkey(), 40).sge(s + 5000 + 100 * i, mrI.lkey(), 60).post());
            assertEquals(1, sq.ring());
            expectSend(10 + i, WcOpcode.SEND);
            final long wrId = (i & 1) == 0 ? 0x2001 + i / 2 : 0x1002;
            expectRecv(wrId, WcOpcode.RECV, 100, 0, 0);
            final long at = (wrId - ((i & 1) == 0 ? 0x2000 : 0x1000)) * 1024 + ((i & 1) == 0 ? 8192 : 0);
            assertArrayEquals(bytes(mrI.memory(), 100 * i, 40), bytes(mrT.memory(), at, 40));
            assertArrayEquals(bytes(mrI.memory(), 5000 + 100 * i, 60), bytes(mrT.memory(), at + 40, 60));
        }
        Rig.assertEmpty(dcqT, c);
        assertEquals(0, dcqT.orphanCqes());
    }

    @Test
    void postAndPollAllocateNothing()
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long tid = Thread.currentThread().threadId();
        final long t = mrT.address();
        final long s = mrI.address();
        final SrqRecvQueue[] rqs = {rq1, rq2};
        final int[] nums = {srq1.srqNum(), srq2.srqNum()};
        for (int round = 0; round < 3; round++)
        {
            final long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 2_000; i++)
            {
                final int k = i & 1;
                if (!rqs[k].post(i, t + k * 4096L, mrT.lkey(), 256))
                {
                    throw new AssertionError("SRQ full at " + i);
                }
                rqs[k].ring();
                sq.xrcSrqn(nums[k]);
                if (!sq.sendImm(i, s, mrI.lkey(), 64, i, SendFlags.SIGNALED | SendFlags.RING))
                {
                    throw new AssertionError("send ring full at " + i);
                }
                // each wait bounded (10 s), so a completion that never comes fails the case instead of hanging it
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (dcqI.poll(c) == 0)
                {
                    if (System.nanoTime() - deadline > 0)
                    {
                        throw new AssertionError("no send completion for " + i);
                    }
                    Thread.onSpinWait();
                }
                if (c.statusCode() != 0)
                {
                    throw new AssertionError(c.toString());
                }
                while (dcqT.poll(c) == 0)
                {
                    if (System.nanoTime() - deadline > 0)
                    {
                        throw new AssertionError("no XRC SRQ completion for " + i + " (unexpected CQEs: "
                            + dcqT.unexpectedCqes() + ")");
                    }
                    Thread.onSpinWait();
                }
                if (c.statusCode() != 0 || c.wrId() != i || c.imm() != i || c.qpn() != tgt.qpn())
                {
                    throw new AssertionError(c.toString());
                }
            }
            final long allocated = mx.getThreadAllocatedBytes(tid) - before;
            if (round == 2)
            {
                // as DirectBehaviourTest: under one byte per cycle after two warm-up rounds means no allocation per
                // post, ring or poll (the smallest object is 16 bytes)
                assertTrue(allocated < 2_000, "bytes allocated by 2000 XRC post+poll cycles: " + allocated);
            }
        }
    }

    /** libc open(2) (variadic: the mode after the flags) and close(2), for file descriptors the JDK does not expose. */
    private static final MethodHandle OPEN = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("open").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
        Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("close").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    static int openFile(final Path path) throws Throwable
    {
        try (Arena a = Arena.ofConfined())
        {
            final int fd = (int) OPEN.invokeExact(a.allocateFrom(path.toString()), 0x42 /* O_RDWR | O_CREAT */, 0600);
            assertTrue(fd >= 0, "open " + path);
            return fd;
        }
    }

    /**
     * A domain opened through a file is the file's: two contexts that open it through two descriptors of one file
     * share it, so a TGT QP created through one context's handle delivers into an XRC SRQ created through the other's.
     * The uverbs errnos: no domain and no create EAGAIN, exclusive create of an existing one EINVAL.
     */
    @Test
    void aDomainOpenedThroughAFileIsShared() throws Throwable
    {
        final Path file = Files.createTempFile("mlx5j-xrcd", ".dom");
        final int fd1 = openFile(file);
        final int fd2 = openFile(file);
        try
        {
            final VerbsException none = assertThrows(VerbsException.class,
                () -> target.context.openXrcDomain(fd1, false, false));
            assertTrue(none.getMessage().contains("EAGAIN"), none.getMessage());
            final XrcDomain shared = target.context.openXrcDomain(fd1, true, true);
            final VerbsException exists = assertThrows(VerbsException.class,
                () -> initiator.context.openXrcDomain(fd2, true, true));
            assertTrue(exists.getMessage().contains("EINVAL"), exists.getMessage());
            final XrcDomain other = initiator.context.openXrcDomain(fd2, false, false);
            assertEquals(fd2, other.fd());
            // the SRQ through the target context's handle, the TGT QP through the initiator context's
            final CompletionQueue cq = target.cq(16);
            final SharedReceiveQueue srq = target.pd.createXrcSrq(shared, cq, 8, 1);
            final QueuePair tgt2 = other.createTgtQp();
            final CompletionQueue cqI = initiator.cq(16);
            final QueuePair ini2 = initiator.pd.createQp(QpConfig.builder(QpType.XRC_SEND, cqI).maxRecvWr(0)
                .maxRecvSge(0).build());
            final int mtu = initiator.port.activeMtu();
            ini2.connect(1, 0, 0, mtu, initiator.peer(tgt2, 0x300), initiator.path(), 0x400);
            tgt2.connect(1, Access.ALL_REMOTE, 0, mtu, initiator.peer(ini2, 0x400), initiator.path(), 0x300);
            final SendQueue sq2 = SendQueue.of(ini2, DoorbellMode.AUTO).xrcSrqn(srq.srqNum());
            final CqPoller dI = CqPoller.of(cqI).attach(sq2);
            final SrqRecvQueue r = SrqRecvQueue.of(srq);
            final CqPoller dT = CqPoller.of(cq).attach(r);
            assertTrue(r.post(77, mrT.address(), mrT.lkey(), 512));
            r.ring();
            assertTrue(sq2.sendImm(78, mrI.address() + 100, mrI.lkey(), 200, 0x1234,
                SendFlags.SIGNALED | SendFlags.RING));
            await(dI, c);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            await(dT, c);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(77, c.wrId(), c::toString);
            assertEquals(200, c.byteLen(), c::toString);
            assertEquals(0x1234, c.imm(), c::toString);
            assertEquals(tgt2.qpn(), c.qpn(), c::toString);
            assertArrayEquals(bytes(mrI.memory(), 100, 200), bytes(mrT.memory(), 0, 200));
            // a TGT QP or SRQ made through a handle keeps it busy: closing the domain closes them first
            other.close();
            assertTrue(tgt2.isClosed());
            shared.close();
            assertTrue(srq.isClosed());
        }
        finally
        {
            assertEquals(0, (int) CLOSE.invokeExact(fd1));
            assertEquals(0, (int) CLOSE.invokeExact(fd2));
            Files.delete(file);
        }
    }

    /**
     * An XRC domain shared through a file by two processes: the TGT QP of this JVM delivers into the XRC SRQ that
     * another process ({@link XrcSrqPeer}, a second JVM on the same fabric) created in the domain, as a ConnectX does
     * on Linux: the SRQ number in the WQE selects it, the completion (with the TGT QP's number) goes to that SRQ's
     * CQ in the other process, and the data lands in its memory. Before the emulator served such requests in the
     * SRQ's process (its eng_xrcfwd.c), the SEND completed with REM_ACCESS_ERR.
     */
    @Test
    void aTgtQpDeliversIntoAnXrcSrqOfAnotherProcess() throws Throwable
    {
        final Path file = Files.createTempFile("mlx5j-xrcd", ".dom");
        final int fd = openFile(file);
        Process child = null;
        try
        {
            final XrcDomain shared = target.context.openXrcDomain(fd, true, true);
            final ProcessBuilder pb = new ProcessBuilder(ChildProcess.javaCommand(XrcSrqPeer.class, "-ea"));
            pb.command().add(file.toString());
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            child = pb.start();
            final BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8));
            final PrintStream in = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
            final String srqLine = out.readLine();
            assertTrue(srqLine != null && srqLine.startsWith("SRQN "), "peer said " + srqLine);
            final int srqn = Integer.parseInt(srqLine.substring(5));

            final QueuePair tgt2 = shared.createTgtQp();
            final CompletionQueue cqI = initiator.cq(16);
            final QueuePair ini2 = initiator.pd.createQp(QpConfig.builder(QpType.XRC_SEND, cqI).maxRecvWr(0)
                .maxRecvSge(0).build());
            final int mtu = initiator.port.activeMtu();
            ini2.connect(1, 0, 0, mtu, initiator.peer(tgt2, 0x300), initiator.path(), 0x400);
            tgt2.connect(1, Access.ALL_REMOTE, 0, mtu, initiator.peer(ini2, 0x400), initiator.path(), 0x300);
            final SendQueue sq2 = SendQueue.of(ini2, DoorbellMode.AUTO).xrcSrqn(srqn);
            final CqPoller dI = CqPoller.of(cqI).attach(sq2);
            assertTrue(sq2.sendImm(78, mrI.address() + 100, mrI.lkey(), 200, 0x1234,
                SendFlags.SIGNALED | SendFlags.RING));
            await(dI, c);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(78, c.wrId(), c::toString);
            in.println("RECV");
            assertEquals("GOT 77 SUCCESS 200 1234 " + Integer.toHexString(tgt2.qpn()) + " "
                + RemotePeer.sha256(mrI.memory().asSlice(100, 200)), out.readLine());
            in.println("BYE");
            assertEquals("VIOLATIONS 0", out.readLine());
            assertTrue(child.waitFor(30, TimeUnit.SECONDS) && child.exitValue() == 0, "peer exit");
            shared.close(); // its TGT QP with it
            assertTrue(tgt2.isClosed());
        }
        finally
        {
            if (child != null)
            {
                child.destroyForcibly();
            }
            assertEquals(0, (int) CLOSE.invokeExact(fd));
            Files.delete(file);
        }
    }

    @Test
    void badInputIsRefusedClearly()
    {
        final IllegalArgumentException noDomain = assertThrows(IllegalArgumentException.class,
            () -> target.pd.createXrcSrq(null, cqT, 4, 1));
        assertTrue(noDomain.getMessage().contains("XRC domain"), noDomain.getMessage());
        assertThrows(IllegalArgumentException.class, () -> target.pd.createXrcSrq(xrcd, null, 4, 1));
        final IllegalArgumentException otherContext = assertThrows(IllegalArgumentException.class,
            () -> initiator.pd.createXrcSrq(xrcd, cqT, 4, 1));
        assertTrue(otherContext.getMessage().contains("another context"), otherContext.getMessage());
        final IllegalStateException noRings = assertThrows(IllegalStateException.class, tgt::rings);
        assertTrue(noRings.getMessage().contains("XRC TGT"), noRings.getMessage());
        // an XRC SRQ completes on its own CQ: a poller of another CQ refuses it
        final CqPoller other = CqPoller.of(target.cq(16));
        final SrqRecvQueue rq3 = SrqRecvQueue.of(target.pd.createXrcSrq(xrcd, cqT, 4, 1));
        assertThrows(IllegalArgumentException.class, () -> other.attach(rq3));
        assertThrows(IllegalArgumentException.class, () -> dcqT.attach(rq3, tgt));
        final IllegalStateException plain = assertThrows(IllegalStateException.class,
            () -> target.pd.createSrq(4, 1).srqNum());
        assertTrue(plain.getMessage().contains("no XRC SRQ"), plain.getMessage());
        // an XRC_SEND post without the SRQ named
        final SendQueue fresh = SendQueue.of(initiator.pd.createQp(QpConfig.builder(QpType.XRC_SEND,
            initiator.cq(16)).maxRecvWr(0).maxRecvSge(0).build()), DoorbellMode.AUTO);
        assertThrows(IllegalStateException.class,
            () -> fresh.send(1, mrI.address(), mrI.lkey(), 8, SendFlags.SIGNALED));
        assertThrows(IllegalArgumentException.class, () -> target.context.openXrcDomain(-1, true, false));
        assertThrows(IllegalArgumentException.class, () -> target.context.openXrcDomain(0, false, true));
    }
}
