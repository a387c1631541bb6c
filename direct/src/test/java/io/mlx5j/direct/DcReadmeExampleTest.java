// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.wqe.Mlx5Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's DC snippet, compiled and run on the emulated device: one DCI writes to three DCTs in turn, each WQE
 * naming its target. Kept verbatim in README.md the way {@link ReadmeExampleTest} keeps the RC one (lines ending in
 * {@code // test only} are the checks, left out of the README; {@link ReadmeExampleTest#theReadmeShowsExactlyThisCode}
 * compares both).
 */
class DcReadmeExampleTest
{
    @Test
    void readmeSnippet()
    {
        final Set<Integer> numbers = new HashSet<>(); // test only
        // README snippet begins
        try (Context ctx = Context.open("mlx5_0");
             ProtectionDomain pd = ctx.allocPd();
             Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(1 << 16, 4096);
            for (int i = 0; i < 64; i++) { buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 5 + 3)); } // test only
            MemoryRegion mr = pd.register(arena, buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            CompletionQueue cq = ctx.createCq(64);
            PortAttributes port = ctx.queryPort(1);
            // the targets' port: here this one; between hosts each target sends its LID/GID, DCT number and rkey
            // (as `mlx5j perf -c DC` does over perftest's exchange)
            AddressVector path = AddressVector.ib(1, port.lid(), 0);
            long dcKey = 0xffeeddccL;                               // every WQE to a DCT must carry its key
            QueuePair[] targets = new QueuePair[3];
            for (int t = 0; t < targets.length; t++) {
                SharedReceiveQueue srq = pd.createSrq(16, 1);       // a DCT's SENDs land on an SRQ
                targets[t] = pd.createQp(QpConfig.builder(QpType.DCT, cq).srq(srq).dcAccessKey(dcKey).build());
                targets[t].activateDc(1, Access.REMOTE_WRITE, port.activeMtu(), path); // RTR: qpn() is the DCT number
                numbers.add(targets[t].qpn()); // test only
            }
            // one initiator, connected to no one: each WQE names its target (address handle, DCT number, key)
            QueuePair dci = pd.createQp(QpConfig.builder(QpType.DCI, cq).maxSendWr(64).build());
            dci.activateDc(1, 0, port.activeMtu(), null);
            AddressHandle ah = pd.createAh(path);
            SendQueue sq = SendQueue.of(dci, DoorbellMode.AUTO);
            CqPoller dcq = CqPoller.of(cq).attach(sq);
            Completion wc = new Completion();
            for (int t = 0; t < targets.length; t++) {
                sq.begin(t, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, SendFlags.SIGNALED | SendFlags.RING)
                    .remote(mr.address() + 4096L * (t + 1), mr.rkey())
                    .dcDestination(ah, targets[t].qpn(), dcKey)
                    .sge(mr.address(), mr.lkey(), 64).post();
                while (dcq.poll(wc) == 0) { Thread.onSpinWait(); }
                assertTrue(wc.isSuccess() && wc.wrId() == t && wc.opcode() == WcOpcode.RDMA_WRITE, wc.toString()); // test only
                assertEquals(-1L, buf.asSlice(0, 64).mismatch(buf.asSlice(4096L * (t + 1), 64)), "target " + t); // test only
            }
            assertEquals(0, buf.get(ValueLayout.JAVA_BYTE, 4096L * 4), "nothing past the third target's bytes"); // test only
        }   // closes the arena (the MR first), then the PD (QPs, SRQs, the AH), then the context (the CQ)
        // README snippet ends
        assertEquals(3, numbers.size(), "three DCTs, three numbers");
    }
}
