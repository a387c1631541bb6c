// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.QpState;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link QueuePair#toReset()} with Java queues on the QP: libmlx5 zeroes the doorbell record and restarts its ring
 * counters on RESET, and the device restarts its wqe_counter, so the Java queues restart theirs; the QP is connected
 * again and exchanges data, checked byte for byte and completion by completion. A reset with work outstanding is
 * refused and leaves the QP where it was. Tagged "links": runs on the InfiniBand and on the Ethernet (RoCE) link.
 */
@Tag("links")
class QpResetTest
{
    private static final int ROUNDS = 3;
    private static final int MESSAGES = 5;
    private static final int LEN = 300;

    private Rig rig;
    private final Completion c = new Completion();

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
    void resetQpIsConnectedAgainAndExchangesData()
    {
        final Pair p = new Pair(rig, QpType.RC);
        for (int round = 0; round < ROUNDS; round++)
        {
            // a different number of WQEs per round, so that the counters of a queue that did not restart would point
            // at stale WQEs of the previous round
            exchange(p, round, MESSAGES + round);

            // one receive left posted: a reset now is refused, the QP keeps its state and the receive its slot
            assertTrue(p.rqB.post(999, p.mrB.address(), p.mrB.lkey(), LEN));
            p.rqB.ring();
            final IllegalStateException refused = assertThrows(IllegalStateException.class, p.b::toReset);
            assertTrue(refused.getMessage().contains("1 receive WQEs") &&
                refused.getMessage().contains("outstanding"), refused.getMessage());
            assertEquals(QpState.RTS, p.b.state());

            // the documented way: ERR, poll the flushes, then RESET and connect again
            p.a.toError();
            p.b.toError();
            Rig.await(p.dcqB, c);
            assertEquals(999, c.wrId(), c::toString);
            assertEquals(WcStatus.WR_FLUSH_ERR, c.status(), c::toString);
            assertEquals(0, p.dcqA.poll(c), "A had nothing outstanding");
            p.a.toReset();
            p.b.toReset();
            assertEquals(QpState.RESET, p.a.state());
            assertEquals(0, p.sqA.producerCounter(), "the send queue restarts at 0 with libmlx5's counters");
            assertEquals(0, p.rqB.outstanding());
            connect(p, 0x1000 * (round + 2));
        }
        exchange(p, ROUNDS, MESSAGES);
    }

    /** {@code n} sends A to B and one B to A, each received with its bytes and completed exactly once. */
    private void exchange(final Pair p, final int round, final int n)
    {
        final MemorySegment src = p.mrA.memory();
        final MemorySegment dst = p.mrB.memory();
        for (int i = 0; i < n; i++)
        {
            assertTrue(p.rqB.post(100 * round + i, p.mrB.address() + i * 512L, p.mrB.lkey(), 512));
        }
        p.rqB.ring();
        for (int i = 0; i < n; i++)
        {
            Rig.fill(src, i * 512L, LEN, round * 17 + i);
            assertTrue(p.sqA.send(1000 * round + i, p.mrA.address() + i * 512L, p.mrA.lkey(), LEN,
                SendFlags.SIGNALED | SendFlags.RING));
        }
        for (int i = 0; i < n; i++)
        {
            Rig.await(p.dcqA, c);
            assertEquals(1000 * round + i, c.wrId(), c::toString);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            Rig.await(p.dcqB, c);
            assertEquals(100 * round + i, c.wrId(), c::toString);
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(WcOpcode.RECV, c.opcode(), c::toString);
            assertEquals(LEN, c.byteLen(), c::toString);
            assertArrayEquals(src.asSlice(i * 512L, LEN).toArray(ValueLayout.JAVA_BYTE),
                dst.asSlice(i * 512L, LEN).toArray(ValueLayout.JAVA_BYTE), "round " + round + " message " + i);
        }
        // and back, so both send queues and both receive queues have moved
        assertTrue(p.rqA.post(7, p.mrA.address() + 32768, p.mrA.lkey(), 512));
        p.rqA.ring();
        Rig.fill(dst, 32768, 64, round + 99);
        assertTrue(p.sqB.send(8, p.mrB.address() + 32768, p.mrB.lkey(), 64, SendFlags.SIGNALED | SendFlags.RING));
        Rig.await(p.dcqB, c);
        assertEquals(8, c.wrId(), c::toString);
        assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
        Rig.await(p.dcqA, c);
        assertEquals(7, c.wrId(), c::toString);
        assertEquals(64, c.byteLen(), c::toString);
        assertArrayEquals(dst.asSlice(32768, 64).toArray(ValueLayout.JAVA_BYTE),
            src.asSlice(32768, 64).toArray(ValueLayout.JAVA_BYTE), "round " + round + " B to A");
    }

    private void connect(final Pair p, final int psn)
    {
        p.a.toInit(InitAttributes.connected(1, Access.ALL_REMOTE));
        p.a.toRtr(RtrAttributes.of(rig.port.activeMtu(), rig.peer(p.b, psn + 1), rig.path()));
        p.a.toRts(RtsAttributes.of(psn));
        p.b.toInit(InitAttributes.connected(1, Access.ALL_REMOTE));
        p.b.toRtr(RtrAttributes.of(rig.port.activeMtu(), rig.peer(p.a, psn), rig.path()));
        p.b.toRts(RtsAttributes.of(psn + 1));
    }
}
