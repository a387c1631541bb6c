// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.examples.wqeunittest;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedConnectX;
import io.mlx5j.testkit.EmulatedConnectXExtension;
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
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** (c) a SEND and its receive on the emulated ConnectX the extension checked: an RC QP connected to itself. */
@EmulatedConnectX(link = "ib", devices = 1, strict = true)
class SendReceiveTest
{
    @Test
    @Timeout(30)
    void sendIsReceived(final EmulatedConnectXExtension.Device device)
    {
        assertEquals("ib", device.link());
        try (Context ctx = Context.open(device.name(0));
             ProtectionDomain pd = ctx.allocPd();
             Arena arena = Arena.ofShared())
        {
            final MemorySegment buf = arena.allocate(8192, 4096);
            for (int i = 0; i < 64; i++)
            {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 3 + 1));
            }
            final MemoryRegion mr = pd.register(arena, buf, Access.LOCAL_WRITE);
            final CompletionQueue cq = ctx.createCq(16);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final PortAttributes port = ctx.queryPort(1);
            final PeerInfo self = PeerInfo.of(port.lid(), qp.qpn(), 0, ctx.queryGid(1, 0));
            qp.connect(1, mr.access(), 0, port.activeMtu(), self, AddressVector.ib(1, port.lid(), 0), self.psn());

            final SendQueue sq = SendQueue.of(qp, DoorbellMode.AUTO);
            final RecvQueue rq = RecvQueue.of(qp);
            final CqPoller poller = CqPoller.of(cq).attach(sq).attach(rq);
            assertTrue(rq.post(7, mr.address() + 4096, mr.lkey(), 64));
            rq.ring();
            assertTrue(sq.send(8, mr.address(), mr.lkey(), 64, SendFlags.SIGNALED | SendFlags.RING));
            final Completion wc = new Completion();
            int send = 0;
            int recv = 0;
            while (send + recv < 2)
            {
                if (poller.poll(wc) == 1)
                {
                    assertTrue(wc.isSuccess(), wc.toString());
                    if (wc.opcode() == WcOpcode.RECV)
                    {
                        assertEquals(7, wc.wrId());
                        assertEquals(64, wc.byteLen());
                        recv++;
                    }
                    else
                    {
                        assertEquals(8, wc.wrId());
                        send++;
                    }
                }
                Thread.onSpinWait();
            }
            assertEquals(-1, buf.asSlice(0, 64).mismatch(buf.asSlice(4096, 64)), "the payload landed");
        }
    }
}
