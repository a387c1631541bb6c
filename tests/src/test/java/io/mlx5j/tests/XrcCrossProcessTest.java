// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.verbs.XrcDomain;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.mlx5j.tests.Rig.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * XRC across two JVMs on the emulated device (engine on, strict mode): a second JVM ({@link XrcTargetPeer}, started
 * with this JVM's emulator environment, so both meet on one fabric) holds an XRC domain, two XRC SRQs on one CQ and two
 * TGT QPs; this JVM holds two XRC INI QPs, each connected to one TGT QP. SENDs, SENDs with immediate and RDMA WRITEs
 * with immediate name either SRQ in every WQE, and a plain RDMA WRITE lands in the target's memory: every completion
 * is checked on both sides (the SRQ WQE's wr_id, status, opcode, byte_len, immediate, and the QP number the CQE
 * carries, which is the TGT QP's), the data by SHA-256 of both sides, the SRQs' outstanding WQEs and the target's
 * orphan and unexpected CQEs counted, and the target reports no strict-mode violation.
 * <p>
 * A domain opened through a file is shared by the processes that open the file: the second JVM opens the same file
 * through a descriptor of its own and gets the first JVM's domain (EAGAIN before this JVM created it, EINVAL for an
 * exclusive create while it exists), creates an XRC SRQ and a TGT QP in it and receives through them, and the domain
 * outlives this JVM's close while the second JVM still holds it. Here the SRQ and the TGT QP are in one process;
 * {@code XrcEndToEndTest} covers a TGT QP delivering into an SRQ of another process of its domain.
 * Tagged "links": InfiniBand and Ethernet (RoCE).
 */
@Tag("links")
class XrcCrossProcessTest
{
    /** Longest wait for one answer of the peer (its RECV waits up to 10 s per completion). */
    private static final long ANSWER_SECONDS = 30;

    /** libc open(2) (variadic: the mode after the flags) and close(2), for descriptors the JDK does not expose. */
    private static final MethodHandle OPEN = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("open").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
        Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("close").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    /** The second JVM, answering line by line; every answer awaited for at most {@link #ANSWER_SECONDS}. */
    private static final class Peer implements AutoCloseable
    {
        final Process process;
        final PrintStream in;
        final BlockingQueue<String> lines = new ArrayBlockingQueue<>(64);

        Peer(final String... jvmOptions) throws Exception
        {
            final ProcessBuilder pb = new ProcessBuilder(ChildProcess.javaCommand(XrcTargetPeer.class, jvmOptions));
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);   // emulator diagnostics show up in the test log
            process = pb.start();
            in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
            final Thread reader = new Thread(() ->
            {
                try
                {
                    String line;
                    while ((line = out.readLine()) != null)
                    {
                        lines.put(line);
                    }
                }
                catch (final Exception ignored)
                {
                    // the peer's end: ask() reports the missing answer
                }
            }, "xrc-peer-reader");
            reader.setDaemon(true);
            reader.start();
        }

        String ask(final String command, final String expectPrefix) throws Exception
        {
            if (command != null)
            {
                in.println(command);
            }
            final String line = lines.poll(ANSWER_SECONDS, TimeUnit.SECONDS);
            assertNotNull(line, () -> "no answer of the peer to " + command + " within " + ANSWER_SECONDS + " s");
            assertTrue(line.startsWith(expectPrefix), "peer answered '" + line + "' to " + command);
            return line.substring(expectPrefix.length()).trim();
        }

        @Override
        public void close() throws Exception
        {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** One INI QP of this JVM and the poller of its CQ. */
    private record Ini(QueuePair qp, SendQueue sq, CqPoller cq)
    {
    }

    private static Ini ini(final Rig rig, final Peer peer, final int which, final PeerInfo tgt) throws Exception
    {
        final CompletionQueue cq = rig.cq(64);
        final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.XRC_SEND, cq).maxSendWr(16).maxRecvWr(0)
            .maxRecvSge(0).maxInlineData(64).build());
        qp.connect(1, 0, 0, rig.port.activeMtu(), tgt, rig.path(), 0x100 * which);
        assertEquals("", peer.ask("PEER " + which + " " + rig.peer(qp, 0x100 * which).toPingpongMessage(), "READY"));
        final SendQueue sq = SendQueue.of(qp, DoorbellMode.AUTO);
        return new Ini(qp, sq, CqPoller.of(cq).attach(sq));
    }

    private static void sent(final Ini ini, final long wrId, final int opcode, final Completion c)
    {
        await(ini.cq(), c);
        assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
        assertEquals(wrId, c.wrId(), c::toString);
        assertEquals(opcode, c.opcode(), c::toString);
        assertEquals(ini.qp().qpn(), c.qpn(), c::toString);
    }

    private static String hex(final int v)
    {
        return Integer.toHexString(v);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sendsAndWritesFromOneJvmReachTheSrqsAndTgtQpsOfAnother() throws Exception
    {
        final long violationsBefore = EmulatedDevice.strictViolations();
        try (Rig rig = new Rig(); Peer peer = new Peer())
        {
            final String[] info = peer.ask(null, "INFO ").split(" ");
            final PeerInfo tgt1 = PeerInfo.parsePingpongMessage(info[0]);
            final PeerInfo tgt2 = PeerInfo.parsePingpongMessage(info[1]);
            final int srqA = Integer.parseInt(info[2]);
            final int srqB = Integer.parseInt(info[3]);
            final int rkey = Integer.parseInt(info[4]);
            final long raddr = Long.parseLong(info[5]);
            final String t1 = hex(tgt1.qpn());
            final String t2 = hex(tgt2.qpn());
            final Ini one = ini(rig, peer, 1, tgt1);
            final Ini two = ini(rig, peer, 2, tgt2);
            final MemoryRegion mr = rig.memory(1 << 18);
            final MemorySegment buf = mr.memory();
            final long l = mr.address();
            Rig.fill(buf, 0, 1 << 18, 9);
            final Completion c = new Completion();

            // SEND from INI 1 into SRQ A: the CQE names TGT QP 1
            one.sq().xrcSrqn(srqA);
            assertTrue(one.sq().send(1, l, mr.lkey(), 3000, SendFlags.SIGNALED | SendFlags.RING));
            sent(one, 1, WcOpcode.SEND, c);
            assertEquals("a000:SUCCESS:128:3000:0:" + t1, peer.ask("RECV 1", "GOT"));
            assertEquals(RemotePeer.sha256(buf.asSlice(0, 3000)), peer.ask("HASH 0 3000", "HASH"));

            // SEND with immediate from INI 2 into SRQ B, then into SRQ A: the SRQ is chosen per WQE, the TGT QP is 2
            two.sq().xrcSrqn(srqB);
            assertTrue(two.sq().sendImm(2, l + 4000, mr.lkey(), 500, 0x5eed0002, SendFlags.SIGNALED | SendFlags.RING));
            sent(two, 2, WcOpcode.SEND, c);
            assertEquals("b000:SUCCESS:128:500:5eed0002:" + t2 + ":imm", peer.ask("RECV 1", "GOT"));
            assertEquals(RemotePeer.sha256(buf.asSlice(4000, 500)), peer.ask("HASH " + 0x8000 + " 500", "HASH"));
            two.sq().xrcSrqn(srqA);
            assertTrue(two.sq().send(3, l + 5000, 0, 48, SendFlags.SIGNALED | SendFlags.INLINE | SendFlags.RING));
            sent(two, 3, WcOpcode.SEND, c);
            assertEquals("a001:SUCCESS:128:48:0:" + t2, peer.ask("RECV 1", "GOT"));
            assertEquals(RemotePeer.sha256(buf.asSlice(5000, 48)), peer.ask("HASH 4096 48", "HASH"));

            // RDMA WRITE of 100,000 bytes (two wire packets) into the target's memory: no receive, no completion
            assertTrue(one.sq().rdmaWrite(4, l + 6000, mr.lkey(), 100_000, raddr + 0x40000, rkey,
                SendFlags.SIGNALED | SendFlags.RING));
            sent(one, 4, WcOpcode.RDMA_WRITE, c);
            assertEquals(RemotePeer.sha256(buf.asSlice(6000, 100_000)),
                peer.ask("HASH " + 0x40000 + " 100000", "HASH"));
            assertEquals("", peer.ask("EMPTY", "EMPTY"));

            // RDMA WRITE with immediate from INI 1 naming SRQ B: the data in memory, a WQE of SRQ B consumed
            one.sq().xrcSrqn(srqB);
            assertTrue(one.sq().rdmaWriteImm(5, l + 110_000, mr.lkey(), 2000, raddr + 0x60000, rkey, 0x0badf00d,
                SendFlags.SIGNALED | SendFlags.RING));
            sent(one, 5, WcOpcode.RDMA_WRITE, c);
            assertEquals("b001:SUCCESS:129:2000:badf00d:" + t1 + ":imm", peer.ask("RECV 1", "GOT"));
            assertEquals(RemotePeer.sha256(buf.asSlice(110_000, 2000)),
                peer.ask("HASH " + 0x60000 + " 2000", "HASH"));

            // a batch: 6 SENDs, alternating INI QPs and SRQs, each WQE naming its SRQ; the target's CQ sees them
            // in the order the two connections deliver them, each SRQ's WQEs in its own order
            for (int i = 0; i < 6; i++)
            {
                final Ini from = (i & 1) == 0 ? one : two;
                from.sq().xrcSrqn(i < 3 ? srqA : srqB);
                assertTrue(from.sq().send(10 + i, l + 120_000 + i * 1000L, mr.lkey(), 100 + i,
                    SendFlags.SIGNALED | SendFlags.RING));
                sent(from, 10 + i, WcOpcode.SEND, c);
                final String srqWr = i < 3 ? "a00" + (2 + i) : "b00" + (i - 1);
                assertEquals(srqWr + ":SUCCESS:128:" + (100 + i) + ":0:" + ((i & 1) == 0 ? t1 : t2),
                    peer.ask("RECV 1", "GOT"));
                final long at = i < 3 ? (2 + i) * 4096L : 0x8000 + (i - 1) * 4096L;
                assertEquals(RemotePeer.sha256(buf.asSlice(120_000 + i * 1000L, 100 + i)),
                    peer.ask("HASH " + at + " " + (100 + i), "HASH"));
            }
            // 8 WQEs posted per SRQ: A and B each gave 5; no CQE without its queue
            assertEquals("3 3 0 0", peer.ask("COUNT", "COUNT"));
            assertEquals("0", peer.ask("BYE", "VIOLATIONS"));
            assertTrue(peer.process.waitFor(30, TimeUnit.SECONDS), "peer exits");
            assertEquals(0, peer.process.exitValue());
        }
        assertEquals(violationsBefore, EmulatedDevice.strictViolations(), "strict-mode violations (see stderr)");
    }

    private static int openFile(final Path path) throws Throwable
    {
        try (Arena a = Arena.ofConfined())
        {
            final int fd = (int) OPEN.invokeExact(a.allocateFrom(path.toString()), 0x2 /* O_RDWR */, 0);
            assertTrue(fd >= 0, "open " + path);
            return fd;
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void twoJvmsOpeningOneFileShareItsDomain() throws Throwable
    {
        final Path file = Files.createTempFile("mlx5j-xrcd-", ".dom");
        final int fd = openFile(file);
        try (Rig rig = new Rig(); Peer peer = new Peer("-Dxrcpeer.file=" + file))
        {
            peer.ask(null, "INFO ");
            // no domain for the file yet, and no create: EAGAIN in the second JVM
            assertTrue(peer.ask("OPEN 0 0", "REFUSED").contains("EAGAIN"));
            final XrcDomain mine = rig.context.openXrcDomain(fd, true, true);
            // this JVM's domain is the file's: an exclusive create there is EINVAL, a plain open gets it
            assertTrue(peer.ask("OPEN 1 1", "REFUSED").contains("EINVAL"));
            assertEquals("", peer.ask("OPEN 0 0", "OPENED"));
            // the second JVM works in the shared domain through its own handle: an XRC SRQ and a TGT QP there, an
            // INI QP of this JVM sending to it
            final String[] shared = peer.ask("SHARED", "SHARED").split(" ");
            final PeerInfo tgt3 = PeerInfo.parsePingpongMessage(shared[0]);
            final int srqC = Integer.parseInt(shared[1]);
            final Ini three = ini(rig, peer, 3, tgt3);
            final MemoryRegion mr = rig.memory(1 << 14);
            Rig.fill(mr.memory(), 0, 1 << 14, 4);
            final Completion c = new Completion();
            three.sq().xrcSrqn(srqC);
            assertTrue(three.sq().sendImm(30, mr.address() + 64, mr.lkey(), 1500, 0x3c,
                SendFlags.SIGNALED | SendFlags.RING));
            sent(three, 30, WcOpcode.SEND, c);
            assertEquals("c000:SUCCESS:128:1500:3c:" + hex(tgt3.qpn()) + ":imm", peer.ask("RECV 1", "GOT"));
            assertEquals(RemotePeer.sha256(mr.memory().asSlice(64, 1500)), peer.ask("HASH " + 0x10000 + " 1500",
                "HASH"));
            // the domain lives while a process holds it: closed here, it is still the file's for an open without
            // create; once the second JVM closed its handle too, it is gone (EAGAIN)
            mine.close();
            final XrcDomain again = rig.context.openXrcDomain(fd, false, false);
            again.close();
            assertEquals("7", peer.ask("CLOSE", "CLOSED"));
            final VerbsException gone = assertThrows(VerbsException.class,
                () -> rig.context.openXrcDomain(fd, false, false));
            assertTrue(gone.getMessage().contains("EAGAIN"), gone.getMessage());
            assertEquals("0", peer.ask("BYE", "VIOLATIONS"));
            assertTrue(peer.process.waitFor(30, TimeUnit.SECONDS), "peer exits");
        }
        finally
        {
            assertEquals(0, (int) CLOSE.invokeExact(fd));
            Files.delete(file);
        }
    }
}
