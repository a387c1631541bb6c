// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvRecvWr;
import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The objects the Java control path creates really carry traffic: libmlx5's own data path (ibv_post_send /
 * ibv_post_recv / ibv_poll_cq, reached through their function pointers) moves data between a loopback RC pair set
 * up by {@link QueuePair#connect}, and a completion event arrives on a {@link CompletionChannel}. This is the
 * reference the Java data path will be compared with.
 */
class Libmlx5DataPathTest
{
    private static final int IBV_WC_SUCCESS = 0;
    private static final int IBV_WC_SEND = 0;
    private static final int IBV_WC_RDMA_WRITE = 1;
    private static final int IBV_WC_RECV = 128;

    private Context context;
    private Arena memory;
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq;
    private QueuePair a;
    private QueuePair b;
    private MemoryRegion mr;

    @BeforeEach
    void connectPair()
    {
        context = Context.open("mlx5_0");
        memory = Arena.ofShared();
        pd = context.allocPd();
        channel = context.createCompletionChannel();
        cq = context.createCq(64, 64, channel, 0);
        a = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        b = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final PortAttributes port = context.queryPort(1);
        final Gid gid = context.queryGid(1, 0);
        final AddressVector path = AddressVector.ib(1, port.lid(), 0);
        a.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(port.lid(), b.qpn(), 200, gid), path, 100);
        b.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(port.lid(), a.qpn(), 100, gid), path, 200);
        mr = pd.register(memory.allocate(8192, 4096), Access.ALL_REMOTE);
    }

    @AfterEach
    void close()
    {
        context.close();
        memory.close();
    }

    @Test
    void sendRecvAndRdmaWriteThroughLibmlx5WithAnEvent()
    {
        final MemorySegment buf = mr.memory();
        final MemorySegment src = buf.asSlice(0, 4096);
        final MemorySegment dst = buf.asSlice(4096, 4096);
        final byte[] payload = new byte[100];
        for (int i = 0; i < payload.length; i++)
        {
            payload[i] = (byte) (i * 7 + 3);
        }
        MemorySegment.copy(payload, 0, src, ValueLayout.JAVA_BYTE, 0, payload.length);

        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment bad = tmp.allocate(C_POINTER);
            // b receives into dst
            final MemorySegment rsge = sge(tmp, dst.address(), 4096, mr.lkey());
            final MemorySegment rwr = tmp.allocate(IbvRecvWr.LAYOUT);
            rwr.set(U64, IbvRecvWr.WR_ID_OFFSET, 0xb0b0L);
            rwr.set(C_POINTER, IbvRecvWr.SG_LIST_OFFSET, rsge);
            rwr.set(C_INT, IbvRecvWr.NUM_SGE_OFFSET, 1);
            assertEquals(0, InlineVerbs.ibv_post_recv(b.pointer(), rwr, bad));

            cq.requestNotify(false);
            final MemorySegment swr = tmp.allocate(IbvSendWr.LAYOUT);
            swr.set(U64, IbvSendWr.WR_ID_OFFSET, 0xa0a0L);
            swr.set(C_POINTER, IbvSendWr.SG_LIST_OFFSET, sge(tmp, src.address(), payload.length, mr.lkey()));
            swr.set(C_INT, IbvSendWr.NUM_SGE_OFFSET, 1);
            swr.set(C_INT, IbvSendWr.OPCODE_OFFSET, IbvSendWr.IBV_WR_SEND);
            swr.set(C_INT, IbvSendWr.SEND_FLAGS_OFFSET, IbvSendWr.IBV_SEND_SIGNALED);
            assertEquals(0, InlineVerbs.ibv_post_send(a.pointer(), swr, bad));

            assertSame(cq, channel.awaitEvent(10_000_000_000L), "no completion event within 10 s");
            cq.ackEvents();
            assertEquals(1, cq.eventsReceived());
            final MemorySegment wc = tmp.allocate(IbvWc.LAYOUT, 4);
            final long[][] got = pollAll(wc, 2);
            // completions in any order: one SEND on a, one RECV on b with the byte count
            assertTrue(contains(got, 0xa0a0L, IBV_WC_SEND, a.qpn(), -1), describe(got));
            assertTrue(contains(got, 0xb0b0L, IBV_WC_RECV, b.qpn(), payload.length), describe(got));
            assertArrayEquals(payload, dst.asSlice(0, payload.length).toArray(ValueLayout.JAVA_BYTE));

            // RDMA WRITE from a into b's buffer at offset 1000
            final MemorySegment wwr = tmp.allocate(IbvSendWr.LAYOUT);
            wwr.set(U64, IbvSendWr.WR_ID_OFFSET, 0xc0c0L);
            wwr.set(C_POINTER, IbvSendWr.SG_LIST_OFFSET, sge(tmp, src.address(), 64, mr.lkey()));
            wwr.set(C_INT, IbvSendWr.NUM_SGE_OFFSET, 1);
            wwr.set(C_INT, IbvSendWr.OPCODE_OFFSET, IbvSendWr.IBV_WR_RDMA_WRITE);
            wwr.set(C_INT, IbvSendWr.SEND_FLAGS_OFFSET, IbvSendWr.IBV_SEND_SIGNALED);
            wwr.set(U64, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET, dst.address() + 1000);
            wwr.set(U32, IbvSendWr.RDMA_RKEY_OFFSET, mr.rkey());
            assertEquals(0, InlineVerbs.ibv_post_send(a.pointer(), wwr, bad));
            final long[][] write = pollAll(wc, 1);
            assertTrue(contains(write, 0xc0c0L, IBV_WC_RDMA_WRITE, a.qpn(), -1), describe(write));
            assertArrayEquals(src.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE),
                dst.asSlice(1000, 64).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    private static MemorySegment sge(final Arena arena, final long addr, final int length, final int lkey)
    {
        final MemorySegment sge = arena.allocate(IbvSge.LAYOUT);
        sge.set(U64, IbvSge.ADDR_OFFSET, addr);
        sge.set(U32, IbvSge.LENGTH_OFFSET, length);
        sge.set(U32, IbvSge.LKEY_OFFSET, lkey);
        return sge;
    }

    /** Polls through libmlx5 until {@code n} completions arrived (10 s limit); rows: wr_id, status, opcode, qp, len. */
    private long[][] pollAll(final MemorySegment wc, final int n)
    {
        final long[][] rows = new long[n][];
        int have = 0;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (have < n)
        {
            final int got = InlineVerbs.ibv_poll_cq(cq.pointer(), Math.min(4, n - have), wc);
            assertTrue(got >= 0, "ibv_poll_cq returned " + got);
            for (int i = 0; i < got; i++)
            {
                final MemorySegment e = wc.asSlice(i * IbvWc.LAYOUT.byteSize(), IbvWc.LAYOUT.byteSize());
                assertEquals(IBV_WC_SUCCESS, e.get(C_INT, IbvWc.STATUS_OFFSET), "wc status");
                rows[have++] = new long[] {e.get(U64, IbvWc.WR_ID_OFFSET), e.get(C_INT, IbvWc.STATUS_OFFSET),
                    e.get(C_INT, IbvWc.OPCODE_OFFSET), e.get(U32, IbvWc.QP_NUM_OFFSET),
                    e.get(U32, IbvWc.BYTE_LEN_OFFSET)};
            }
            assertTrue(System.nanoTime() < deadline, "only " + have + " of " + n + " completions in 10 s");
            Thread.onSpinWait();
        }
        return rows;
    }

    private static boolean contains(final long[][] rows, final long wrId, final int opcode, final int qpn,
        final int len)
    {
        for (final long[] r : rows)
        {
            if (r[0] == wrId && r[2] == opcode && r[3] == qpn && (len < 0 || r[4] == len))
            {
                return true;
            }
        }
        return false;
    }

    private static String describe(final long[][] rows)
    {
        final StringBuilder sb = new StringBuilder();
        for (final long[] r : rows)
        {
            sb.append(String.format("[wr_id %x status %d opcode %d qp %x len %d] ", r[0], r[1], r[2], r[3], r[4]));
        }
        return sb.toString();
    }
}
