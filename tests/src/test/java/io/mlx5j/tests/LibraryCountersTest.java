// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library's counters after a known sequence: posts refused for a full ring (send and receive), error CQEs by
 * syndrome (one remote access error, then the flushes of the WQEs behind it and of the peer's posted receives), and
 * none of them counted on the success path.
 */
class LibraryCountersTest
{
    private static final int REMOTE_ACCESS = 0x13;  // MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR
    private static final int FLUSH = 0x05;          // MLX5_CQE_SYNDROME_WR_FLUSH_ERR

    private Rig rig;

    @BeforeEach
    void open()
    {
        rig = new Rig();
    }

    @AfterEach
    void close()
    {
        rig.close();
    }

    @Test
    void refusedPostsErrorsAndFlushes()
    {
        final CompletionQueue cqA = rig.cq(64);
        final CompletionQueue cqB = rig.cq(64);
        final QueuePair a = rig.pd.createQp(QpConfig.builder(QpType.RC, cqA).maxSendWr(8).maxRecvWr(4).build());
        final QueuePair b = rig.pd.createQp(QpConfig.builder(QpType.RC, cqB).maxSendWr(8).maxRecvWr(4).build());
        rig.connect(a, b);
        final MemoryRegion mr = rig.memory(1 << 16);
        final SendQueue sq = SendQueue.of(a, DoorbellMode.AUTO);
        final RecvQueue rqB = RecvQueue.of(b);
        final CqPoller dcqA = CqPoller.of(cqA).attach(sq);
        final CqPoller dcqB = CqPoller.of(cqB).attach(rqB);
        final Completion c = new Completion();

        // the success path counts nothing
        assertTrue(sq.rdmaWrite(1, mr.address(), mr.lkey(), 64, mr.address() + 4096, mr.rkey(),
            SendFlags.SIGNALED | SendFlags.RING));
        assertTrue(Rig.await(dcqA, c).isSuccess(), c.toString());
        assertEquals(0, sq.refusedFull());
        assertEquals(0, dcqA.errorCqes());

        // a full receive ring refuses: every further post counts once
        int posted = 0;
        while (rqB.post(100 + posted, mr.address() + 8192 + posted * 256L, mr.lkey(), 256))
        {
            posted++;
        }
        assertEquals(1, rqB.refusedFull());
        assertFalse(rqB.post(999, mr.address(), mr.lkey(), 256));
        assertEquals(2, rqB.refusedFull());
        rqB.ring();

        // a full send ring (unsignaled WQEs, no doorbell: nothing retires them) refuses the same way
        final int wqes = a.rings().sqWqeCnt();
        for (int i = 0; i < wqes; i++)
        {
            assertTrue(sq.rdmaWrite(10 + i, mr.address(), mr.lkey(), 8, mr.address() + 4096, 0xbad, 0), "post " + i);
        }
        assertFalse(sq.rdmaWrite(99, mr.address(), mr.lkey(), 8, mr.address() + 4096, 0xbad, 0));
        assertEquals(1, sq.refusedFull());

        // ring them, the last signaled: the first meets a bad rkey (remote access error), the rest flush
        assertFalse(sq.rdmaWrite(98, mr.address(), mr.lkey(), 8, mr.address() + 4096, 0xbad,
            SendFlags.SIGNALED | SendFlags.RING));
        assertEquals(2, sq.refusedFull());
        sq.ring();
        Rig.await(dcqA, c);
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), c.statusCode(), c.toString());
        int flushed = 0;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (flushed < wqes - 1 && System.nanoTime() < deadline)
        {
            if (dcqA.poll(c) == 1)
            {
                assertEquals(WcStatus.WR_FLUSH_ERR.code(), c.statusCode(), c.toString());
                flushed++;
            }
        }
        assertEquals(wqes - 1, flushed);
        assertEquals(1, dcqA.errorCqes(REMOTE_ACCESS));
        assertEquals(wqes - 1, dcqA.flushes());
        assertEquals(wqes - 1, dcqA.errorCqes(FLUSH));
        assertEquals(wqes, dcqA.errorCqes());

        // the responder went to the error state with the bad WRITE (a NAK it sent): its receives flush
        int recvFlushed = 0;
        final long until = System.nanoTime() + 10_000_000_000L;
        while (recvFlushed < posted && System.nanoTime() < until)
        {
            if (dcqB.poll(c) == 1)
            {
                assertEquals(WcStatus.WR_FLUSH_ERR.code(), c.statusCode(), c.toString());
                recvFlushed++;
            }
        }
        assertEquals(posted, recvFlushed);
        assertEquals(posted, dcqB.flushes());
        assertEquals(posted, dcqB.errorCqes());
    }
}
