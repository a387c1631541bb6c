// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DC transport end to end through the emulated device, all from Java: one DCI (SendQueue with dcDestination per
 * WQE) reaching two DCTs alternately, each DCT with its own DC key, SRQ and CQ. SENDs land on the addressed DCT's
 * SRQ with exact completions (wr_id, length, opcode, the DCT's number), RDMA WRITE and READ move exactly the bytes
 * asked for, and a WQE carrying a wrong DC key completes with the error the emulator gives a key violation
 * (RETRY_EXC_ERR, vendor syndrome 0x81, as emulator/test/engine/t_dc.c checks for libmlx5).
 */
@Tag("links")
class DcEndToEndTest
{
    private static final long KEY0 = 0x1122334455667788L;
    private static final long KEY1 = 0x0badc0ffee0ddf00L;

    @Test
    void oneDciTwoDctsAlternately()
    {
        try (Rig rig = new Rig())
        {
            final int mtu = rig.port.activeMtu();
            final CompletionQueue cqI = rig.cq(64);
            final QueuePair dci = rig.pd.createQp(QpConfig.builder(QpType.DCI, cqI).maxSendWr(32).build());
            dci.activateDc(1, 0, mtu, null);
            final CompletionQueue[] cqT = {rig.cq(64), rig.cq(64)};
            final SharedReceiveQueue[] srq = {rig.pd.createSrq(16, 1), rig.pd.createSrq(16, 1)};
            final QueuePair[] dct = new QueuePair[2];
            final long[] key = {KEY0, KEY1};
            final SrqRecvQueue[] rq = new SrqRecvQueue[2];
            final CqPoller[] pollT = new CqPoller[2];
            final MemoryRegion[] mrT = {rig.memory(1 << 16), rig.memory(1 << 16)};
            for (int t = 0; t < 2; t++)
            {
                dct[t] = rig.pd.createQp(QpConfig.builder(QpType.DCT, cqT[t]).srq(srq[t]).dcAccessKey(key[t])
                    .build());
                dct[t].activateDc(1, Access.ALL_REMOTE, mtu, rig.path());
                rq[t] = SrqRecvQueue.of(srq[t]);
                pollT[t] = CqPoller.of(cqT[t]).attach(rq[t]);
                for (int i = 0; i < 8; i++)
                {
                    assertTrue(rq[t].post(1000L * (t + 1) + i, mrT[t].address() + 1024L * i, mrT[t].lkey(), 1024));
                }
                assertEquals(8, rq[t].ring());
            }
            assertNotEquals(dct[0].qpn(), dct[1].qpn(), "two DCTs, two numbers");
            assertThrows(IllegalArgumentException.class, () -> SendQueue.of(dct[0], DoorbellMode.AUTO));
            final AddressHandle ah = rig.pd.createAh(rig.path());
            final SendQueue sq = SendQueue.of(dci, DoorbellMode.AUTO);
            final CqPoller pollI = CqPoller.of(cqI).attach(sq);
            final MemoryRegion mrI = rig.memory(1 << 16);
            final MemorySegment local = mrI.memory();
            Rig.fill(local, 0, 1 << 16, 3);
            final Completion c = new Completion();
            // SENDs, alternating targets: each lands on its own DCT's SRQ, in order
            for (int round = 0; round < 8; round++)
            {
                final int t = round & 1;
                final int len = 200 + round;
                assertTrue(sq.begin(round, Mlx5Opcode.MLX5_OPCODE_SEND, SendFlags.SIGNALED | SendFlags.RING)
                    .dcDestination(ah, dct[t].qpn(), key[t]).sge(mrI.address() + 64L * round, mrI.lkey(), len)
                    .post());
                Rig.await(pollI, c);
                assertEquals(round, c.wrId());
                assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
                assertEquals(WcOpcode.SEND, c.opcode());
                Rig.await(pollT[t], c);
                assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
                assertEquals(WcOpcode.RECV, c.opcode());
                assertEquals(1000L * (t + 1) + (round >>> 1), c.wrId(), "the DCT's SRQ WQEs in order");
                assertEquals(len, c.byteLen());
                assertEquals(dct[t].qpn(), c.qpn(), "the completion names the DCT");
                assertEquals(local.asSlice(64L * round, len).mismatch(
                    mrT[t].memory().asSlice(1024L * (round >>> 1), len)), -1L, "SEND payload " + round);
                Rig.assertEmpty(pollT[1 - t], c);
            }
            // RDMA WRITE to each DCT, then READ it back into fresh local memory
            for (int t = 0; t < 2; t++)
            {
                final long remote = mrT[t].address() + 0x8000;
                final int len = 3000 + t;
                assertTrue(sq.begin(100 + t, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, SendFlags.SIGNALED | SendFlags.RING)
                    .remote(remote, mrT[t].rkey()).dcDestination(ah, dct[t].qpn(), key[t])
                    .sge(mrI.address() + 0x100 * t, mrI.lkey(), len).post());
                Rig.await(pollI, c);
                assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
                assertEquals(WcOpcode.RDMA_WRITE, c.opcode());
                assertEquals(-1L, local.asSlice(0x100L * t, len).mismatch(mrT[t].memory().asSlice(0x8000, len)),
                    "RDMA WRITE data on DCT " + t);
                assertEquals(0, mrT[t].memory().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0x8000L + len),
                    "nothing past the WRITE");
                final long into = mrI.address() + 0x8000 + 0x2000L * t;
                assertTrue(sq.begin(200 + t, Mlx5Opcode.MLX5_OPCODE_RDMA_READ, SendFlags.SIGNALED | SendFlags.RING)
                    .remote(remote, mrT[t].rkey()).dcDestination(ah, dct[t].qpn(), key[t])
                    .sge(into, mrI.lkey(), len).post());
                Rig.await(pollI, c);
                assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
                assertEquals(WcOpcode.RDMA_READ, c.opcode());
                assertEquals(len, c.byteLen());
                assertEquals(-1L, local.asSlice(0x8000 + 0x2000L * t, len).mismatch(local.asSlice(0x100L * t, len)),
                    "RDMA READ data from DCT " + t);
            }
            Rig.assertEmpty(pollT[0], c);
            Rig.assertEmpty(pollT[1], c);
            // a wrong DC key: the DCT drops the request, the DCI retries out
            assertTrue(sq.begin(300, Mlx5Opcode.MLX5_OPCODE_SEND, SendFlags.SIGNALED | SendFlags.RING)
                .dcDestination(ah, dct[0].qpn(), KEY0 ^ 1).sge(mrI.address(), mrI.lkey(), 16).post());
            Rig.await(pollI, c);
            assertEquals(300, c.wrId());
            assertEquals(WcStatus.RETRY_EXC_ERR, c.status(), c.toString());
            assertEquals(0x81, c.vendorSyndrome(), c.toString());
            Rig.assertEmpty(pollT[0], c);
        }
    }
}
