// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.ChildProcess;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static io.mlx5j.tests.Rig.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mlx5j to mlx5j across two processes on the emulated device (engine on, strict mode): this JVM and a second JVM
 * ({@link RemotePeer}, started with the same emulator environment, so both meet on one fabric) connect RC QPs with
 * the direct path only. Every operation is checked on both ends: SEND (with immediate) into the peer's receives,
 * RDMA WRITE and WRITE with immediate into its memory, RDMA READ of its pattern, FETCH_ADD and CMP_SWAP on its
 * counter, a SEND from the peer into our receive; then the peer exits (reporting zero strict-mode violations) and a
 * WRITE to the vanished peer ends in RETRY_EXC_ERR followed by a flush.
 */
@Tag("links")
class CrossProcessTest
{
    /** 8-byte atomics are host-endian on ConnectX-4+ under Linux (mlx5 core sets atomic_req_8B_endianness_mode). */
    private static final ValueLayout.OfLong HOST64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    private static final class Peer implements AutoCloseable
    {
        final Process process;
        final BufferedReader out;
        final PrintStream in;

        Peer() throws Exception
        {
            final ProcessBuilder pb = new ProcessBuilder(ChildProcess.javaCommand(RemotePeer.class));
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);   // emulator diagnostics show up in the test log
            process = pb.start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        String ask(final String command, final String expectPrefix) throws Exception
        {
            if (command != null)
            {
                in.println(command);
            }
            final String line = out.readLine();
            assertTrue(line != null && line.startsWith(expectPrefix), "peer answered '" + line + "' to " + command);
            return line.substring(expectPrefix.length()).trim();
        }

        @Override
        public void close() throws Exception
        {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void everyOperationAcrossTwoProcessesThenPeerGone() throws Exception
    {
        final long violationsBefore = EmulatedDevice.strictViolations();
        try (Rig rig = new Rig(); Peer peer = new Peer())
        {
            final String[] info = peer.ask(null, "INFO ").split(" ");
            final PeerInfo remote = PeerInfo.parsePingpongMessage(info[0]);
            final int rkey = Integer.parseInt(info[1]);
            final long raddr = Long.parseLong(info[2]);

            final CompletionQueue cqObject = rig.cq(256);
            final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RC, cqObject).maxSendWr(32).maxRecvWr(16)
                .maxInlineData(64).build());
            qp.toInit(InitAttributes.connected(1, Access.ALL_REMOTE));
            qp.toRtr(RtrAttributes.of(rig.port.activeMtu(), remote, rig.path()));
            qp.toRts(new RtsAttributes(0x100, 8, 2, 7, 1));   // short retry: the peer-gone case must end quickly
            final SendQueue sq = SendQueue.of(qp, DoorbellMode.AUTO);
            final RecvQueue rq = RecvQueue.of(qp);
            final CqPoller cq = CqPoller.of(cqObject).attach(sq).attach(rq);
            final MemoryRegion mr = rig.memory(1 << 16);
            final MemorySegment buf = mr.memory();
            final long l = mr.address();
            Rig.fill(buf, 0, 0x8000, 3);
            final Completion c = new Completion();
            assertEquals("", peer.ask("PEER " + rig.peer(qp, 0x100).toPingpongMessage(), "READY"));

            // SEND, SEND with immediate (inline), empty SEND: the peer's receives complete in order
            assertTrue(sq.send(1, l, mr.lkey(), 3000, SendFlags.SIGNALED));
            assertTrue(sq.sendImm(2, l + 3000, 0, 48, 0x600dcafe, SendFlags.SIGNALED | SendFlags.INLINE));
            assertTrue(sq.send(3, l, mr.lkey(), 0, SendFlags.SIGNALED));
            assertEquals(3, sq.ring());
            for (int i = 1; i <= 3; i++)
            {
                await(cq, c);
                assertEquals(i, c.wrId());
                assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
                assertEquals(WcOpcode.SEND, c.opcode());
            }
            final String me = Integer.toHexString(qp.qpn());
            assertEquals("5000:SUCCESS:128:3000:0:" + me + " 5001:SUCCESS:128:48:600dcafe:" + me + ":imm"
                + " 5002:SUCCESS:128:0:0:" + me, peer.ask("RECV 3", "GOT"));
            assertEquals(RemotePeer.sha256(buf.asSlice(0, 3000)), peer.ask("HASH 0 3000", "HASH"));
            assertEquals(RemotePeer.sha256(buf.asSlice(3000, 48)), peer.ask("HASH 4096 48", "HASH"));

            // RDMA WRITE and WRITE with immediate into the peer's memory
            assertTrue(sq.rdmaWrite(4, l + 100, mr.lkey(), 5000, raddr + RemotePeer.WRITE_OFFSET, rkey,
                SendFlags.SIGNALED | SendFlags.RING));
            await(cq, c);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(RemotePeer.sha256(buf.asSlice(100, 5000)),
                peer.ask("HASH " + RemotePeer.WRITE_OFFSET + " 5000", "HASH"));
            assertTrue(sq.rdmaWriteImm(5, l + 7000, mr.lkey(), 700, raddr + RemotePeer.WRITE_OFFSET + 8192, rkey, 42,
                SendFlags.SIGNALED | SendFlags.RING));
            await(cq, c);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(WcOpcode.RDMA_WRITE, c.opcode());
            assertEquals("5003:SUCCESS:129:700:2a:" + me + ":imm", peer.ask("RECV 1", "GOT"));
            assertEquals(RemotePeer.sha256(buf.asSlice(7000, 700)),
                peer.ask("HASH " + (RemotePeer.WRITE_OFFSET + 8192) + " 700", "HASH"));

            // RDMA READ of the peer's pattern
            assertTrue(sq.rdmaRead(6, l + 0x8000, mr.lkey(), 8192, raddr + RemotePeer.PATTERN_OFFSET, rkey,
                SendFlags.SIGNALED | SendFlags.RING));
            await(cq, c);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(WcOpcode.RDMA_READ, c.opcode());
            assertEquals(8192, c.byteLen());
            try (Arena a = Arena.ofConfined())
            {
                final MemorySegment expect = a.allocate(0x10000);
                Rig.fill(expect, RemotePeer.PATTERN_OFFSET, 8192, 77);
                assertArrayEquals(expect.asSlice(RemotePeer.PATTERN_OFFSET, 8192).toArray(ValueLayout.JAVA_BYTE),
                    buf.asSlice(0x8000, 8192).toArray(ValueLayout.JAVA_BYTE), "READ data");
            }

            // atomics on the peer's counter (40)
            assertTrue(sq.fetchAdd(7, l + 0xc000, mr.lkey(), raddr + RemotePeer.COUNTER_OFFSET, rkey, 2,
                SendFlags.SIGNALED | SendFlags.RING));
            await(cq, c);
            assertEquals(WcOpcode.FETCH_ADD, c.opcode(), c::toString);
            assertEquals(40L, buf.get(HOST64, 0xc000));
            assertTrue(sq.compareSwap(8, l + 0xc008, mr.lkey(), raddr + RemotePeer.COUNTER_OFFSET, rkey, 42, 100,
                SendFlags.SIGNALED | SendFlags.RING));
            await(cq, c);
            assertEquals(WcOpcode.COMP_SWAP, c.opcode(), c::toString);
            assertEquals(42L, buf.get(HOST64, 0xc008));
            assertEquals("100", peer.ask("WORD " + RemotePeer.COUNTER_OFFSET, "WORD"));

            // the peer sends to us
            assertTrue(rq.post(9, l + 0xd000, mr.lkey(), 4096));
            rq.ring();
            assertTrue(peer.ask("SEND " + RemotePeer.PATTERN_OFFSET + " 300", "SENT").startsWith("6000:SUCCESS:0:"));
            await(cq, c);
            assertEquals(9, c.wrId());
            assertEquals(WcOpcode.RECV, c.opcode());
            assertEquals(300, c.byteLen());
            assertEquals(remote.qpn(), c.srcQp());
            try (Arena a = Arena.ofConfined())
            {
                final MemorySegment expect = a.allocate(0x10000);
                Rig.fill(expect, RemotePeer.PATTERN_OFFSET, 300, 77);
                assertArrayEquals(expect.asSlice(RemotePeer.PATTERN_OFFSET, 300).toArray(ValueLayout.JAVA_BYTE),
                    buf.asSlice(0xd000, 300).toArray(ValueLayout.JAVA_BYTE), "data SENT by the peer");
            }

            // the peer leaves cleanly (no strict-mode violation in its process) ...
            assertEquals("0", peer.ask("BYE", "VIOLATIONS"));
            assertTrue(peer.process.waitFor(20, TimeUnit.SECONDS), "peer did not exit");
            assertEquals(0, peer.process.exitValue());
            // ... and a WRITE to it is retried until the retry count is exhausted; what follows is flushed
            assertTrue(sq.rdmaWrite(10, l, mr.lkey(), 64, raddr, rkey, SendFlags.SIGNALED));
            assertTrue(sq.rdmaWrite(11, l, mr.lkey(), 64, raddr, rkey, SendFlags.SIGNALED));
            sq.ring();
            await(cq, c);
            assertEquals(10, c.wrId());
            assertEquals(WcStatus.RETRY_EXC_ERR, c.status(), c::toString);
            await(cq, c);
            assertEquals(11, c.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, c.status(), c::toString);
        }
        assertEquals(violationsBefore, EmulatedDevice.strictViolations(),
            "emulator strict-mode violations in this JVM");
    }
}
