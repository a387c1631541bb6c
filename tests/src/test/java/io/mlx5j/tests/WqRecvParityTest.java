// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.IbvRecvWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.raw.StridingRecvQueue;
import io.mlx5j.testkit.HostCommand;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.DeviceCapabilities;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.verbs.WorkQueue;
import io.mlx5j.verbs.WqRing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Receive WQ rings written by mlx5j equal their judges, with the device idle (engine off):
 * <ul>
 * <li>a plain WQ's ring and doorbell record after {@link RecvQueue} posts equal a twin WQ's after libmlx5's
 *     {@code ibv_post_wq_recv} (mlx5_post_wq_recv) of the same work requests: 1..4 scatter entries, zero-length
 *     entries (dropped by both), the terminator entry, batches of several WQEs per doorbell, every slot of the ring,
 *     and the bytes of a WQE after its terminator, which neither writes (both rings start as the same garbage);</li>
 * <li>a striding WQ's ring after {@link StridingRecvQueue} posts equals, slot for slot, a {@code struct
 *     mlx5_mprq_wqe} filled by the header's {@code mlx5dv_set_data_seg} in a C program built at test time
 *     (src/test/c/mprq_wqe.c), since libmlx5 itself cannot post striding WQEs; the doorbell record holds the WQE
 *     counter.</li>
 * </ul>
 */
@Tag("parity")
class WqRecvParityTest
{
    private Rig rig;

    @BeforeEach
    void open()
    {
        rig = new Rig();
        Assumptions.assumeTrue(rig.roce, "WQs need an Ethernet port");
    }

    @AfterEach
    void close()
    {
        rig.close();
    }

    @Test
    void plainWqWqesEqualMlx5PostWqRecv()
    {
        final Random rnd = new Random(17);
        for (int maxSge = 1; maxSge <= 4; maxSge++)
        {
            final CompletionQueue cq = rig.cq(256);
            final WorkQueue wqL = rig.pd.createWq(WorkQueue.builder(cq).maxWr(32).maxSge(maxSge)).ready();
            final WorkQueue wqJ = rig.pd.createWq(WorkQueue.builder(rig.cq(256)).maxWr(32).maxSge(maxSge)).ready();
            final WqRing rl = wqL.rings();
            final WqRing rj = wqJ.rings();
            assertEquals(rl.wqeCnt(), rj.wqeCnt());
            assertEquals(rl.stride(), rj.stride());
            // both rings start as the same garbage (libmlx5's comes from posix_memalign, not zeroed): a byte one side
            // writes and the other leaves alone shows
            rl.buf().fill((byte) 0xa5);
            rj.buf().fill((byte) 0xa5);
            final RecvQueue rq = RecvQueue.of(wqJ);
            int posted = 0;
            try (Arena a = Arena.ofConfined())
            {
                while (posted < rl.wqeCnt())
                {
                    final int batch = Math.min(1 + rnd.nextInt(4), rl.wqeCnt() - posted);
                    for (int b = 0; b < batch; b++, posted++)
                    {
                        final int n = 1 + rnd.nextInt(maxSge);
                        final long[] addr = new long[n];
                        final int[] len = new int[n];
                        final int[] lkey = new int[n];
                        final MemorySegment sges = a.allocate(IbvSge.LAYOUT, n);
                        rq.begin(0x1000 + posted);
                        for (int k = 0; k < n; k++)
                        {
                            addr[k] = rnd.nextLong();
                            len[k] = rnd.nextInt(5) == 0 ? 0 : 1 + rnd.nextInt(1 << 20);
                            lkey[k] = rnd.nextInt();
                            final long at = k * IbvSge.LAYOUT.byteSize();
                            sges.set(ValueLayout.JAVA_LONG, at + IbvSge.ADDR_OFFSET, addr[k]);
                            sges.set(ValueLayout.JAVA_INT, at + IbvSge.LENGTH_OFFSET, len[k]);
                            sges.set(ValueLayout.JAVA_INT, at + IbvSge.LKEY_OFFSET, lkey[k]);
                            rq.sge(addr[k], lkey[k], len[k]);
                        }
                        assertTrue(rq.post());
                        final MemorySegment wr = a.allocate(IbvRecvWr.LAYOUT);
                        wr.set(ValueLayout.JAVA_LONG, IbvRecvWr.WR_ID_OFFSET, 0x1000 + posted);
                        wr.set(CTypes.C_POINTER, IbvRecvWr.NEXT_OFFSET, MemorySegment.NULL);
                        wr.set(CTypes.C_POINTER, IbvRecvWr.SG_LIST_OFFSET, sges);
                        wr.set(ValueLayout.JAVA_INT, IbvRecvWr.NUM_SGE_OFFSET, n);
                        assertEquals(0, InlineVerbs.ibv_post_wq_recv(wqL.pointer(), wr, a.allocate(CTypes.C_POINTER)));
                    }
                    assertEquals(batch, rq.ring());
                    final String what = "max_sge " + maxSge + ", " + posted + " WQEs posted";
                    final long bytes = rl.buf().byteSize();
                    final byte[] ringL = rl.buf().asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
                    final byte[] ringJ = rj.buf().asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
                    assertArrayEquals(ringL, ringJ, () -> "ring " + what +
                        "\nlibmlx5 " + HexFormat.of().formatHex(ringL) +
                        "\nmlx5j   " + HexFormat.of().formatHex(ringJ));
                    assertArrayEquals(rl.dbrec().toArray(ValueLayout.JAVA_BYTE),
                        rj.dbrec().toArray(ValueLayout.JAVA_BYTE), "doorbell record " + what);
                }
                assertFalse(rq.begin(1).sge(1, 1, 1).post(), "the ring is full");
            }
        }
    }

    @Test
    void stridingWqesAreTheHeadersStruct() throws Exception
    {
        final Random rnd = new Random(23);
        final StringBuilder in = new StringBuilder();
        final CompletionQueue cq = rig.cq(256);
        if (DeviceCapabilities.query(rig.context).stridingQpTypes() == 0)
        {
            // ConnectX-4 Lx: no striding RQ, and the device refuses one rather than posting a layout it cannot use
            assertThrows(VerbsException.class,
                () -> rig.pd.createWq(WorkQueue.builder(cq).maxWr(64).striding(7, 9, false)));
            return;
        }
        final WorkQueue wq = rig.pd.createWq(WorkQueue.builder(cq).maxWr(64).striding(7, 9, false)).ready();
        final WqRing r = wq.rings();
        final StridingRecvQueue q = StridingRecvQueue.of(wq, false);
        assertEquals(512 * 128, q.bufferBytes());
        for (int i = 0; i < r.wqeCnt(); i++)
        {
            final long addr = rnd.nextLong();
            final int lkey = rnd.nextInt();
            assertTrue(q.post(i, addr, lkey));
            in.append(r.stride()).append(' ').append(q.bufferBytes()).append(' ').append(Integer.toUnsignedString(lkey))
                .append(' ').append(Long.toUnsignedString(addr)).append('\n');
            if (i % 7 == 6)
            {
                q.ring();
            }
        }
        assertFalse(q.post(99, 0, 0), "the ring is full");
        q.ring();
        final List<String> c = judge(in.toString());
        assertEquals(r.wqeCnt(), c.size());
        for (int i = 0; i < r.wqeCnt(); i++)
        {
            assertEquals(c.get(i), HexFormat.of().formatHex(r.buf().asSlice((long) i * r.stride(), r.stride())
                .toArray(ValueLayout.JAVA_BYTE)), "WQE " + i);
        }
        assertEquals(r.wqeCnt(), r.dbrec().get(ValueLayout.JAVA_INT.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0),
            "the doorbell record's receive counter");
    }

    /** Compiles src/test/c/mprq_wqe.c against the installed headers and runs it on {@code input}. */
    private static List<String> judge(final String input)
    {
        final Path exe = HostCommand.gcc("mprq_wqe", "-std=c11", "-O1");
        return List.of(HostCommand.run(List.of(exe.toString()), input).split("\n"));
    }
}
