// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

import static io.mlx5j.wqe.CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_NOP;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Send ring: wrap at every position, overflow at capacity, retirement through CQE wqe_counter, exact bytes. */
class SendRingTest
{
    private static final int QPN = 0x00abcd;

    /** Posts and retires {@code n} one-WQEBB NOPs so that the producer counter sits at {@code n}. */
    private static void advance(final SendRing sq, final WqeWriter w, final MemorySegment ring, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final long ctrl = sq.claim(1);
            w.wrap(ring, ctrl).ctrl(0, MLX5_OPCODE_NOP, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
            sq.commit(w.ds(), -1);
            sq.complete((int)(ctrl >>> 6));
        }
    }

    /** A 3-WQEBB UD send: ctrl (1 ds), av (3), 100 bytes inline (7), data (1) = 12 ds. */
    private static void writeBigWqe(final WqeWriter w, final MemorySegment ring, final long ctrl, final int idx)
    {
        final byte[] payload = new byte[100];
        for (int i = 0; i < payload.length; i++)
        {
            payload[i] = (byte)(i + 1);
        }
        w.wrap(ring, ctrl)
            .datagram(0x1234_5678L << 32, 0x42, false, 0x5, 0, 0x17, 0x0c42a1b2c3d4L, 1, 64,
                DatagramSeg.grhGidFlIb(2, 0x12345), 0xfe80_0000_0000_0000L, 0x0002_c903_0001_0203L)
            .inline(MemorySegment.ofArray(payload), 0, payload.length)
            .data(4096, 0x99, 0x7f00_0000_0000L)
            .ctrl(0, MLX5_OPCODE_SEND, idx, QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    }

    @Test
    void wqeWrapsAtEveryRingPosition()
    {
        final int cnt = 8;
        final MemorySegment linear = MemorySegment.ofArray(new long[cnt * 64 / 8]);
        final WqeWriter w = new WqeWriter(cnt);
        for (int start = 0; start < cnt; start++)
        {
            final SendRing sq = new SendRing(cnt);
            final MemorySegment ring = MemorySegment.ofArray(new long[cnt * 64 / 8]);
            advance(sq, w, ring, start);
            ring.fill((byte)0x5a);
            final long ctrl = sq.claim(3);
            assertEquals((long)start * 64, ctrl);
            writeBigWqe(w, ring, ctrl, sq.wqeIndex());
            assertEquals(1 + 3 + 7 + 1, w.ds());
            assertEquals(3, w.numWqebb());
            sq.commit(w.ds(), 77);
            assertEquals(start + 3, sq.producerCounter());
            assertEquals(ctrl, sq.lastCtrlOffset());
            assertEquals(3, sq.lastNumWqebb());
            assertEquals(12, sq.lastDs());

            linear.fill((byte)0x5a);
            writeBigWqe(w, linear, 0, start);
            final int bytes = 12 * 16;
            assertEquals(Hex.of(linear, 0, bytes), Hex.of(ring, ctrl, bytes), "start " + start);
            // bytes outside the WQE are untouched
            assertEquals("5a".repeat(cnt * 64 - bytes), Hex.of(ring, ctrl + bytes, cnt * 64 - bytes), "start " + start);
        }
    }

    @Test
    void dsRoundsUpToWqebbs()
    {
        for (int ds = 1; ds <= CtrlSeg.MAX_DS; ds++)
        {
            assertEquals((ds * 16 + 63) / 64, SendRing.numWqebb(ds), "ds " + ds);
            final SendRing sq = new SendRing(64);
            sq.commit(ds, 0);
            assertEquals((ds + 3) / 4, sq.producerCounter(), "ds " + ds);
        }
        assertEquals(1, InlineSeg.ds(0));
        assertEquals(1, InlineSeg.ds(12));
        assertEquals(2, InlineSeg.ds(13));
        assertEquals(2, InlineSeg.ds(28));
        assertEquals(3, InlineSeg.ds(29));
    }

    @Test
    void overflowExactlyAtCapacity()
    {
        final SendRing sq = new SendRing(16);
        for (int i = 0; i < 16; i++)
        {
            assertEquals((long)i * 64, sq.claim(1));
            sq.commit(1, i);
        }
        assertEquals(SendRing.NO_SPACE, sq.claim(1));
        assertEquals(0, sq.freeWqebb());
        assertThrows(IllegalStateException.class, () -> sq.commit(1, 99));
        assertEquals(0L, sq.complete(0));   // retires WQEBB 0 only
        assertEquals(15, sq.outstanding());
        assertEquals(SendRing.NO_SPACE, sq.claim(2));
        assertEquals(0L, sq.claim(1));
        sq.commit(1, 16);
        assertEquals(SendRing.NO_SPACE, sq.claim(1));

        final SendRing big = new SendRing(16);
        for (int i = 0; i < 7; i++)
        {
            big.commit(8, i);   // 8 ds = 2 WQEBBs
        }
        assertEquals(SendRing.NO_SPACE, big.claim(3));
        assertEquals(14L * 64, big.claim(2));
        assertThrows(IllegalArgumentException.class, () -> big.claim(17));
        assertThrows(IllegalArgumentException.class, () -> big.claim(0));
    }

    @Test
    void signaledCqeRetiresEarlierUnsignaledWqes()
    {
        final SendRing sq = new SendRing(8);
        final MemorySegment ring = MemorySegment.ofArray(new long[8 * 64 / 8]);
        final WqeWriter w = new WqeWriter(8);
        int signaledIndex = 0;
        final int laps = 70_000 / 4;   // run the counters past the 16-bit wqe_index wrap
        final MemorySegment cqBuf = MemorySegment.ofArray(new long[64 / 8]);
        final CqeView cqe = new CqeView().wrap(cqBuf, 64, 1);
        for (int lap = 0; lap < laps; lap++)
        {
            w.wrap(ring, sq.claim(1)).raddr(1, 2).data(8, 3, 4)
                .ctrl(0, MLX5_OPCODE_RDMA_WRITE, sq.wqeIndex(), QPN, 0, 0);
            sq.commit(w.ds(), 1000L * lap + 1);
            writeBigWqe(w, ring, sq.claim(3), sq.wqeIndex());
            sq.commit(w.ds(), 1000L * lap + 2);
            signaledIndex = sq.wqeIndex();
            final long c = sq.claim(1);
            assertTrue(c >= 0);
            w.wrap(ring, c).raddr(1, 2).data(8, 3, 4)
                .ctrl(0, MLX5_OPCODE_RDMA_WRITE, signaledIndex, QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
            sq.commit(w.ds(), 1000L * lap + 3);
            assertEquals(5, sq.outstanding());

            // the device reports the signaled WQE: wqe_counter = wqe_index of its first WQEBB
            cqBuf.set(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Cqe64.WQE_COUNTER_OFFSET,
                (short)signaledIndex);
            cqBuf.set(ValueLayout.JAVA_BYTE, Cqe64.OP_OWN_OFFSET, (byte)((Cqe64.MLX5_CQE_REQ << 4) | (lap & 1)));
            assertTrue(cqe.tryAcquire(lap));
            assertEquals(1000L * lap + 3, sq.complete(cqe.wqeCounter()));
            assertEquals(0, sq.outstanding());
            assertEquals(sq.producerCounter(), sq.consumerCounter());
        }
        assertTrue(sq.producerCounter() > 65536);
        // the 16-bit ctrl index is what the ring holds
        assertEquals(signaledIndex & 0xffff,
            (ring.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), sq.lastCtrlOffset()) >>> 8) & 0xffff);
    }

    @Test
    void bogusWqeCounterIsRejected()
    {
        final SendRing sq = new SendRing(8);
        sq.commit(5, 1);   // 5 ds round up to 2 WQEBBs
        sq.commit(1, 2);
        assertThrows(IllegalStateException.class, () -> sq.complete(1));   // middle of WQE 0
        assertThrows(IllegalStateException.class, () -> sq.complete(3));   // not posted
        assertEquals(2L, sq.complete(2));
        assertThrows(IllegalStateException.class, () -> sq.complete(2));   // already retired
        assertThrows(IllegalStateException.class, () -> sq.complete(0));
    }

    @Test
    void inlineCrossingRingEndExactBytes()
    {
        final SendRing sq = new SendRing(4);
        final MemorySegment ring = MemorySegment.ofArray(new long[4 * 64 / 8]);
        final WqeWriter w = new WqeWriter(4);
        advance(sq, w, ring, 3);
        ring.fill((byte)0xaa);
        final byte[] data = new byte[57];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte)i;
        }
        final long ctrl = sq.claim(2);
        assertEquals(0xc0, ctrl);
        w.wrap(ring, ctrl).inline(MemorySegment.ofArray(data), 0, data.length)
            .ctrl(0, MLX5_OPCODE_SEND, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
        assertEquals(5, w.ds());
        assertEquals(2, w.numWqebb());
        // data bytes 0..43 go to 0xd4..0xff, bytes 44..56 continue at the ring start, then 3 zero padding bytes
        final StringBuilder head = new StringBuilder();
        for (int i = 0; i < 44; i++)
        {
            head.append(String.format("%02x", i));
        }
        final String exact =
            "2c2d2e2f303132333435363738" + "000000" +   // 0x00: data 44..56, padding
            "aa".repeat(0xc0 - 0x10) +                 // untouched
            "0000030a" + "00abcd05" + "00000008" + "00000000" +   // 0xc0 ctrl: idx 3 SEND, qpn 0xabcd ds 5, CQ_UPDATE
            "80000039" + head;                         // 0xd0: 57 | MLX5_INLINE_SEG, data 0..43
        assertEquals(exact, Hex.of(ring, 0, 256));
    }

    @Test
    void oversizedWqesAreRejected()
    {
        final MemorySegment ring = MemorySegment.ofArray(new long[8 * 64 / 8]);
        final WqeWriter w = new WqeWriter(1);   // 4 ds: ctrl + 3 segments
        w.wrap(ring, 0).data(1, 1, 1).data(1, 1, 1).data(1, 1, 1);
        final IllegalArgumentException sge = assertThrows(IllegalArgumentException.class, () -> w.data(1, 1, 1));
        assertTrue(sge.getMessage().contains("too many SGEs"), sge.getMessage());

        final WqeWriter w2 = new WqeWriter(2);  // 8 ds: inline up to 7 * 16 - 4 = 108 bytes
        final MemorySegment src = MemorySegment.ofArray(new byte[200]);
        w2.wrap(ring, 0).inline(src, 0, 108);
        assertEquals(8, w2.ds());
        final IllegalArgumentException inl = assertThrows(IllegalArgumentException.class,
            () -> w2.wrap(ring, 0).inline(src, 0, 109));
        assertTrue(inl.getMessage().contains("inline"), inl.getMessage());
        assertThrows(IllegalArgumentException.class, () -> w2.wrap(ring, 0).inline(src, 150, 60));
        assertThrows(IllegalArgumentException.class, () -> w2.wrap(ring, 32));
        assertThrows(IllegalArgumentException.class, () -> w2.wrap(ring, 512));
        assertThrows(IllegalArgumentException.class, () -> w2.wrap(MemorySegment.ofArray(new long[12]), 0));

        final RecvWqeWriter r = new RecvWqeWriter();
        final MemorySegment rq = MemorySegment.ofArray(new long[8]);
        r.wrap(rq, 0, 32).data(1, 1, 1).data(1, 1, 1).finish();
        assertThrows(IllegalArgumentException.class, () -> r.data(1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> r.wrap(rq, 48, 32));

        final RecvRing q = new RecvRing(2, 32);
        assertEquals(0L, q.claim());
        q.commit(10);
        assertEquals(32L, q.claim());
        q.commit(11);
        assertEquals(RecvRing.NO_SPACE, q.claim());
        assertEquals(10L, q.complete());
        assertEquals(11L, q.complete());
        assertThrows(IllegalStateException.class, q::complete);
    }
}
