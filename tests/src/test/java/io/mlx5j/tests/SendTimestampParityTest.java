// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvCqEx;
import io.mlx5j.bindings.IbvCqInitAttrEx;
import io.mlx5j.bindings.IbvPollCqAttr;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.NicClock;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Send completion timestamps judged by libmlx5: mlx5j posts signaled sends on an RC, UC, UD or raw packet QP whose
 * send CQ was created with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP; the engine writes each requester CQE there, the test
 * copies it byte for byte into a second extended CQ that only libmlx5 polls (ibv_start_poll, then
 * ibv_wc_read_completion_ts and ibv_wc_read_completion_wallclock_ns), and {@link Completion#timestamp()} of the same
 * CQE, polled by {@link CqPoller}, must equal libmlx5's reading, be non-zero, never decrease, and, in nanoseconds,
 * lie between CLOCK_REALTIME reads taken before the post and after the poll.
 */
@Tag("links")
class SendTimestampParityTest
{
    private static final long WC_FLAGS = IbvCqInitAttrEx.IBV_WC_STANDARD_FLAGS |
        IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
        IbvCqInitAttrEx.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
    private static final int SENDS = 24;

    private Rig rig;
    private Arena arena;

    @BeforeEach
    void open()
    {
        rig = new Rig();
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close()
    {
        arena.close();
        rig.close();
    }

    enum Kind
    {
        RC, UC, UD, RAW
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void sendCompletionCarriesTheTimestampLibmlx5Reads(final Kind kind)
    {
        Assumptions.assumeTrue(kind != Kind.RAW || rig.roce, "raw packet QPs need an Ethernet port");
        final CompletionQueue cqJ = rig.context.createCqEx(64, WC_FLAGS);
        final CompletionQueue cqL = rig.context.createCqEx(64, WC_FLAGS);
        final QpType type = switch (kind)
        {
            case RC -> QpType.RC;
            case UC -> QpType.UC;
            case UD -> QpType.UD;
            case RAW -> QpType.RAW_PACKET;
        };
        final QueuePair qp = rig.pd.createQp(QpConfig.builder(type, cqJ).maxSendWr(32).maxRecvWr(1).maxSendSge(1)
            .maxRecvSge(1).build());
        if (kind == Kind.RAW)
        {
            qp.activate(1);
        }
        else
        {
            rig.connect(qp, qp);
        }
        final MemoryRegion mr = rig.memory(1 << 16);
        final SendQueue sq;
        final RawSendQueue raw;
        if (kind == Kind.RAW)
        {
            raw = RawSendQueue.of(qp, DoorbellMode.AUTO);
            sq = raw.queue();
            final byte[] frame = FrameSender.frame(0xef010309, 32001, 7000, 64, -1, false, false, false, 1);
            MemorySegment.copy(frame, 0, mr.memory(), ValueLayout.JAVA_BYTE, 0, frame.length);
        }
        else
        {
            raw = null;
            sq = SendQueue.of(qp, DoorbellMode.AUTO);
        }
        final AddressHandle ah = kind == Kind.UD ? rig.pd.createAh(rig.path()) : null;
        final CqPoller dcq = CqPoller.of(cqJ).attach(sq);
        final Completion c = new Completion();
        final MemorySegment cqx = cqL.pointer();
        final MemorySegment pollAttr = arena.allocate(IbvPollCqAttr.LAYOUT);
        long last = 0;
        try (NicClock clock = NicClock.of(rig.context))
        {
            for (int i = 0; i < SENDS; i++)
            {
                final long before = wallNanos();
                final int flags = SendFlags.SIGNALED | SendFlags.RING;
                final boolean posted = switch (kind)
                {
                    case RC, UC -> sq.rdmaWrite(i, mr.address(), mr.lkey(), 64, mr.address() + 4096, mr.rkey(),
                        flags);
                    case UD -> sq.udSend(i, ah, 1, Rig.QKEY, mr.address(), mr.lkey(), 64, flags);
                    case RAW -> raw.send(i, mr.address(), mr.lkey(), 106, flags);
                };
                assertTrue(posted, kind + " post " + i);
                CqeMirror.mirror(cqJ, cqL, i);
                assertEquals(0, InlineVerbs.ibv_start_poll(cqx, pollAttr), "libmlx5 polls send " + i);
                final long ts = InlineVerbs.callCqLong(InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_TS_OFFSET), cqx);
                final long wall = InlineVerbs.callCqLong(
                    InlineVerbs.cqFn(cqx, IbvCqEx.READ_COMPLETION_WALLCLOCK_NS_OFFSET), cqx);
                final int status = cqx.reinterpret(IbvCqEx.LAYOUT.byteSize()).get(ValueLayout.JAVA_INT,
                    IbvCqEx.STATUS_OFFSET);
                InlineVerbs.ibv_end_poll(cqx);
                assertEquals(1, dcq.poll(c), "mlx5j polls send " + i);
                final long after = wallNanos();
                final String msg = kind + " send " + i + ": " + c;
                assertEquals(0, status, msg);
                assertTrue(c.isSuccess(), msg);
                assertEquals(i, c.wrId(), msg);
                assertEquals(kind == Kind.RC || kind == Kind.UC ? WcOpcode.RDMA_WRITE : WcOpcode.SEND, c.opcode(),
                    msg);
                assertEquals(ts, c.timestamp(), "completion_ts (libmlx5 ibv_wc_read_completion_ts) " + msg);
                assertTrue(ts != 0, "the engine stamped the send " + msg);
                assertTrue(ts >= last, "timestamps of one CQ never decrease " + msg);
                final long mine = clock.toNanos(c.timestamp());
                assertTrue(Math.abs(mine - wall) <= 1, "wallclock ns: libmlx5 " + wall + ", NicClock " + mine);
                // CLOCK_REALTIME through Instant has microsecond steps here: one of slack on each side
                assertTrue(before - 1000 <= mine && mine <= after + 1000, "CLOCK_REALTIME " + before + " <= stamp "
                    + mine + " <= " + after + " " + msg);
                last = ts;
            }
        }
    }

    private static long wallNanos()
    {
        final java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
