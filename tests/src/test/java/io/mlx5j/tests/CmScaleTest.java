// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.cm.CmConnection;
import io.mlx5j.cm.ConnectOptions;
import io.mlx5j.cm.EventChannel;
import io.mlx5j.cm.PortSpace;
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
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.mlx5j.tests.CmScalePeer.MESSAGE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@value #COUNT} RC connections over rdma_cm between this JVM and a {@link CmScalePeer} in another process, on one
 * emulated device per side: every connection carries one {@value CmScalePeer#MESSAGE}-byte message of its own to the
 * peer, which sends it back on the same connection; each echo must arrive on its own QP with exactly the bytes sent.
 * Tagged "links": runs on the InfiniBand and on the Ethernet (RoCE) link. Bounded by the steps' timeouts, not by a
 * budget: connects wait at most {@link #T} each, the messages and echoes at most {@link #TRAFFIC} together. Measured
 * on the loaded 2-core machine (IB / RoCE): 20.8 s / 41.0 s at a load average of 18, 120.9 s / 138.6 s at 20 to 26.
 */
@Tag("links")
class CmScaleTest
{
    private static final int COUNT = 1024;
    private static final Duration T = Duration.ofSeconds(120);
    /**
     * The bound on all messages and echoes together: 43 s were measured for them at 1,024 connections with a load
     * average of 20 to 26 on two cores (the emulator's shared-register doorbell sweep visits every QP per doorbell).
     */
    private static final Duration TRAFFIC = Duration.ofSeconds(600);

    @Test
    void connectionsBetweenTwoProcessesEachCarryTheirOwnMessage() throws Exception
    {
        final int port = EmulatedDevice.freeTcpPort();
        final long t0 = System.nanoTime();
        final List<String> command = new ArrayList<>(ChildProcess.javaCommand(CmScalePeer.class));
        command.add(Integer.toString(port));
        command.add(Integer.toString(COUNT));
        final Process peer = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final List<CmConnection> connections = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                StandardCharsets.UTF_8));
             PrintStream in = new PrintStream(peer.getOutputStream(), true, StandardCharsets.UTF_8);
             Arena arena = Arena.ofShared(); Context context = Context.open("mlx5_0");
             EventChannel channel = EventChannel.create())
        {
            assertEquals("READY", out.readLine(), "the peer did not start listening");
            final MemorySegment buf = arena.allocate(2L * MESSAGE * COUNT, 4096);
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(2 * COUNT + 64);
            final MemoryRegion mr = pd.register(buf, Access.LOCAL_WRITE);
            final CqPoller poller = CqPoller.of(cq);
            final SendQueue[] sqs = new SendQueue[COUNT];
            final InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
            try
            {
                for (int i = 0; i < COUNT; i++)
                {
                    final CmConnection conn = CmConnection.connect(channel, PortSpace.TCP, address,
                        ConnectOptions.builder().timeout(T).build(), id -> pd.createQp(QpConfig.builder(QpType.RC, cq)
                            .maxSendWr(2).maxRecvWr(2).maxSendSge(1).maxRecvSge(1).build()));
                    connections.add(conn);
                    final RecvQueue rq = RecvQueue.of(conn.qp());
                    // the echo lands in the second half, slot i
                    assertTrue(rq.post(i, buf.address() + (long) MESSAGE * (COUNT + i), mr.lkey(), MESSAGE));
                    rq.ring();
                    sqs[i] = SendQueue.of(conn.qp(), DoorbellMode.AUTO);
                    poller.attach(rq).attach(sqs[i]);
                }
                final long connected = System.nanoTime();
                for (int i = 0; i < COUNT; i++)
                {
                    final MemorySegment msg = buf.asSlice((long) MESSAGE * i, MESSAGE);
                    for (int b = 0; b < MESSAGE; b++)
                    {
                        msg.set(ValueLayout.JAVA_BYTE, b, (byte) (i * 31 + b * 7 + (i >>> 8)));
                    }
                    assertTrue(sqs[i].send(i, msg.address(), mr.lkey(), MESSAGE, SendFlags.SIGNALED | SendFlags.RING));
                }
                final boolean[] sent = new boolean[COUNT];
                final boolean[] echoed = new boolean[COUNT];
                final Completion c = new Completion();
                final long deadline = System.nanoTime() + TRAFFIC.toNanos();
                int done = 0;
                while (done < 2 * COUNT)
                {
                    if (poller.poll(c) == 0)
                    {
                        if (System.nanoTime() > deadline)
                        {
                            fail(done + " of " + 2 * COUNT + " completions within " + TRAFFIC);
                        }
                        Thread.onSpinWait();
                        continue;
                    }
                    assertTrue(c.isSuccess(), c::toString);
                    final int i = (int) c.wrId();
                    if (c.opcode() == WcOpcode.SEND)
                    {
                        assertTrue(!sent[i], "second send completion of connection " + i);
                        sent[i] = true;
                    }
                    else
                    {
                        assertEquals(WcOpcode.RECV, c.opcode(), c::toString);
                        assertTrue(!echoed[i], "second echo on connection " + i);
                        assertEquals(connections.get(i).qp().qpn(), c.qpn(), "echo of message " + i);
                        assertEquals(MESSAGE, c.byteLen(), c::toString);
                        assertArrayEquals(buf.asSlice((long) MESSAGE * i, MESSAGE).toArray(ValueLayout.JAVA_BYTE),
                            buf.asSlice((long) MESSAGE * (COUNT + i), MESSAGE).toArray(ValueLayout.JAVA_BYTE),
                            "echo of connection " + i);
                        echoed[i] = true;
                    }
                    done++;
                }
                assertEquals("DONE " + COUNT + " failed 0", out.readLine(), "the peer's count");
                System.out.printf("CmScaleTest: %d connections in %.1f s, messages and echoes in %.1f s%n", COUNT,
                    (connected - t0) / 1e9, (System.nanoTime() - connected) / 1e9);
                in.println("QUIT");
                assertTrue(peer.waitFor(T.toSeconds(), TimeUnit.SECONDS), "the peer did not exit");
                assertEquals(0, peer.exitValue(), "the peer's exit status");
            }
            finally
            {
                for (final CmConnection conn : connections)
                {
                    conn.close();
                }
            }
        }
        finally
        {
            peer.destroyForcibly();
        }
    }
}
