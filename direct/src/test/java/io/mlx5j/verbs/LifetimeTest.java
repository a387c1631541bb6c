// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendQueue;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Close order and use-after-close on the emulated device: failures must be Java exceptions, never native access. */
class LifetimeTest
{
    @Test
    void closingAnObjectClosesWhatDependsOnItFirst()
    {
        try (Context context = Context.open("mlx5_0"))
        {
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16);
            final CompletionQueue other = context.createCq(16);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final SharedReceiveQueue srq = pd.createSrq(16, 1);
            final QueuePair onSrq = pd.createQp(QpConfig.builder(QpType.RC, other).srq(srq).build());
            final QpRing rings = qp.rings();
            cq.close();     // takes the QP with it, not the PD or the other CQ
            assertTrue(cq.isClosed() && qp.isClosed());
            assertTrue(!pd.isClosed() && !other.isClosed() && !onSrq.isClosed());
            assertThrows(IllegalStateException.class, () -> rings.sq().get(ValueLayout.JAVA_BYTE, 0));
            pd.close();     // the QP on the SRQ (newest first), then the SRQ, then the PD
            assertTrue(onSrq.isClosed() && srq.isClosed() && pd.isClosed() && !other.isClosed());
            assertThrows(IllegalStateException.class, () -> pd.createSrq(16, 1));
        }
    }

    /** README's order: the arena closes before the PD and the context, and nothing is freed while registered. */
    @Test
    void anArenaTiedMrIsDeregisteredBeforeTheArenaFreesItsMemory()
    {
        try (Context context = Context.open("mlx5_0"); ProtectionDomain pd = context.allocPd())
        {
            final Arena arena = Arena.ofShared();
            final MemorySegment buf = arena.allocate(8192, 4096);
            final boolean[] closedBeforeOlderActions = new boolean[1];
            final MemoryRegion[] mr = new MemoryRegion[1];
            // an action older than the MR's runs after it and before the free (FFM runs them newest first)
            buf.reinterpret(arena, unused -> closedBeforeOlderActions[0] = mr[0].isClosed());
            mr[0] = pd.register(arena, buf, Access.LOCAL_WRITE);
            arena.close();
            assertTrue(mr[0].isClosed(), "MR still registered after its arena closed");
            assertTrue(closedBeforeOlderActions[0], "the MR was not deregistered before the arena's older actions");
            assertThrows(IllegalStateException.class, mr[0]::lkey);

            // closed first by its PD's cascade: the arena's action later does nothing
            final Arena second = Arena.ofConfined();
            final MemoryRegion early = pd.register(second, second.allocate(4096), Access.LOCAL_WRITE);
            early.close();
            second.close();
            assertTrue(early.isClosed());

            final Arena third = Arena.ofConfined();
            final MemorySegment foreign = Arena.ofAuto().allocate(64);
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> pd.register(third, foreign, Access.LOCAL_WRITE));
            assertTrue(e.getMessage().contains("not allocated from"), e.getMessage());
            third.close();
        }
    }

    /** The caller-managed form cannot prevent the free, but it does not stay silent about it. */
    @Test
    void memoryFreedUnderAnUntiedMrIsReportedAtItsClose()
    {
        try (Context context = Context.open("mlx5_0"); ProtectionDomain pd = context.allocPd())
        {
            final Arena arena = Arena.ofConfined();
            final MemoryRegion mr = pd.register(arena.allocate(4096), Access.LOCAL_WRITE);
            arena.close();
            final IllegalStateException e = assertThrows(IllegalStateException.class, mr::close);
            assertTrue(e.getMessage().contains("freed") && e.getMessage().contains("register(arena"), e.getMessage());
            assertTrue(mr.isClosed());
        }
    }

    @Test
    void useAfterCloseThrowsAndRingViewsDie()
    {
        try (Context context = Context.open("mlx5_0"))
        {
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final QpRing rings = qp.rings();
            final CqRing cqRing = cq.ring();
            final MemorySegment qpPointer = qp.pointer();
            qp.close();
            qp.close(); // idempotent

            final IllegalStateException e = assertThrows(IllegalStateException.class, qp::qpn);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertThrows(IllegalStateException.class, qp::rings);
            assertThrows(IllegalStateException.class, () -> qp.toInit(InitAttributes.connected(1, 0)));
            // every segment that looked at the destroyed QP is dead, so no stale read/write can reach freed memory
            assertThrows(IllegalStateException.class, () -> rings.sq().get(ValueLayout.JAVA_BYTE, 0));
            assertThrows(IllegalStateException.class, () -> rings.dbrec().set(ValueLayout.JAVA_INT, 0, 1));
            assertThrows(IllegalStateException.class, () -> rings.bfReg().get(ValueLayout.JAVA_LONG, 0));
            assertThrows(IllegalStateException.class, () -> qpPointer.get(ValueLayout.JAVA_INT, 0));
            // the CQ is untouched by the QP's close
            assertEquals(0xf0, cqRing.buf().get(ValueLayout.JAVA_BYTE, 63) & 0xf0);
        }
    }

    /**
     * SendQueue's posts return false for one reason only, a full ring (its Javadoc, "Results: why a boolean is
     * enough"); a closed queue is not a false but an exception, on the one-call fast path and on the staging path.
     */
    @Test
    void postingOnAClosedQueueThrowsInsteadOfReturningFalse()
    {
        try (Context context = Context.open("mlx5_0"))
        {
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final SendQueue sq = SendQueue.of(qp, io.mlx5j.doorbell.DoorbellMode.DOORBELL);
            assertTrue(sq.nop(1, 0), "open queue with room: posted");
            assertEquals(1, sq.pending(), "posted without RING: waits for ring()");
            qp.close();
            // ring() checks liveness itself, then stores the doorbell record and the doorbell by address
            final IllegalStateException r = assertThrows(IllegalStateException.class, sq::ring);
            assertTrue(r.getMessage().contains("closed"), r.getMessage());
            assertThrows(IllegalStateException.class, () -> sq.nop(2, 0));
            assertThrows(IllegalStateException.class, () -> sq.send(3, 0x10000, 1, 64, 0));
            // the staging path: begin ... post
            assertThrows(IllegalStateException.class, () -> sq.begin(4, io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE,
                0).remote(0x30000, 2).sge(0x10000, 1, 64).post());
        }
    }

    /** The same for a receive queue: its one-buffer post writes the ring unchecked after one liveness check. */
    @Test
    void receivingOnAClosedQueueThrows()
    {
        try (Context context = Context.open("mlx5_0"))
        {
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).maxRecvWr(1).build());
            final RecvQueue rq = RecvQueue.of(qp);
            final int slots = qp.rings().rqWqeCnt();
            for (int i = 0; i < slots; i++)
            {
                assertTrue(rq.post(i, 0x10000, 1, 64), "open queue with room: posted");
            }
            qp.close();
            // a full ring, a zero-length buffer (the staging form) and the staging form itself: all throw
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> rq.post(9, 0x10000, 1, 64));
            assertTrue(e.getMessage().contains("the QP is closed"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> rq.post(10, 0x10000, 1, 0));
            assertThrows(IllegalStateException.class, () -> rq.begin(11).sge(0x10000, 1, 64).post());
        }
    }

    /**
     * A thread still reading a ring while another thread closes the QP: the shared arena's close handshake makes the
     * reader fail with IllegalStateException at its next access, never read the unmapped queue.
     */
    @Test
    void concurrentReaderOfARingSeesCloseAsAnException() throws Exception
    {
        try (Context context = Context.open("mlx5_0"))
        {
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final MemorySegment sq = qp.rings().sq();
            final AtomicReference<Throwable> ended = new AtomicReference<>();
            final CountDownLatch reading = new CountDownLatch(1);
            final Thread reader = new Thread(() ->
            {
                long sum = 0;
                try
                {
                    while (true)
                    {
                        for (long off = 0; off < sq.byteSize(); off += 8)
                        {
                            sum += sq.get(ValueLayout.JAVA_LONG, off);
                        }
                        reading.countDown();
                    }
                }
                catch (final Throwable t)
                {
                    ended.set(t);
                }
                if (sum == 42)
                {
                    System.out.print("");
                }
            });
            reader.start();
            assertTrue(reading.await(10, TimeUnit.SECONDS));
            qp.close();
            reader.join(10_000);
            assertTrue(!reader.isAlive(), "reader still running after close");
            assertTrue(ended.get() instanceof IllegalStateException, String.valueOf(ended.get()));
        }
    }

    @Test
    void closingTheContextClosesEverythingNewestFirst()
    {
        final Context context = Context.open("mlx5_0");
        final ProtectionDomain pd = context.allocPd();
        final CompletionChannel channel = context.createCompletionChannel();
        final CompletionQueue cq = context.createCq(16, 64, channel, 0);
        final SharedReceiveQueue srq = pd.createSrq(16, 1);
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).srq(srq).build());
        final Arena arena = Arena.ofConfined();
        final MemoryRegion mr = pd.register(arena.allocate(4096), Access.LOCAL_WRITE);
        final CqRing ring = cq.ring();
        context.close();
        for (final NativeResource r : new NativeResource[] {context, pd, channel, cq, srq, qp, mr})
        {
            assertTrue(r.isClosed(), r + " still open");
        }
        assertThrows(IllegalStateException.class, () -> ring.buf().get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, context::allocPd);
        assertThrows(IllegalStateException.class, () -> context.queryPort(1));
        arena.close();
    }

    @Test
    void deviceListEntriesDieWithTheList()
    {
        final DeviceList list = DeviceList.open();
        final Device device = list.get("mlx5_0");
        try (Context context = device.open())
        {
            list.close();
            assertThrows(IllegalStateException.class, device::open);
            assertThrows(IllegalStateException.class, list::names);
            // the context outlives the list (libibverbs keeps the device referenced)
            assertEquals(1, context.queryDevice().physPortCnt());
        }
    }
}
