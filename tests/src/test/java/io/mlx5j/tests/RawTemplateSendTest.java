// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RawSendQueue's one-call template send writes its WQE straight into the ring (EthFrameEncoder), beside the
 * staging form ({@code begin().sge(header).sge(payload).post()}) that writes it through WqeWriter. RawSendParityTest
 * compares the template send with libmlx5 for the inline headers libmlx5 writes (0 and 18 bytes); libmlx5 never
 * inlines a whole 42-byte header into a plain send, so for that size (and a 30-byte one) this test holds the template
 * send to the staging form's bytes, whose Ethernet segment RawEndToEndTest checks on the wire. Twin QPs, the frame at
 * every start position of the ring (so the header, the gather entries and the inline payload each reach the ring end
 * at some position), gathered and inline: the rings must be equal but for each QP's number in qpn_ds, and so must the
 * BlueFlame copies and doorbell records.
 */
@Tag("parity")
class RawTemplateSendTest
{
    private static final int PAYLOAD = 64;

    @ParameterizedTest(name = "inline header {0}, template in a {1} arena")
    @CsvSource({"42, shared", "30, shared", "-1, shared", "42, confined", "30, confined", "-1, confined"})
    void templateSendWritesTheStagingFormsBytesAtEveryRingPosition(final int inlineHeader, final String arena)
    {
        // a confined arena of this thread takes EthFrameEncoder's one-check path (raw loads), any other the checked
        // MemorySegment.copy: both must write the staging form's bytes (-1: the device's minimum inline header, the
        // header then in the inline data segment)
        try (Rig rig = new Rig(); Arena own = Arena.ofConfined())
        {
            Assumptions.assumeTrue(rig.roce, "raw packet QPs need an Ethernet port");
            final CompletionQueue cqT = rig.cq(64);
            final CompletionQueue cqS = rig.cq(64);
            final QueuePair qpT = rig.pd.createQp(config(cqT));
            final QueuePair qpS = rig.pd.createQp(config(cqS));
            qpT.activate(1);
            qpS.activate(1);
            final RawSendQueue t = RawSendQueue.of(qpT, DoorbellMode.AUTO);
            final RawSendQueue s = RawSendQueue.of(qpS, DoorbellMode.AUTO);
            if (inlineHeader >= 0)
            {
                t.inlineHeaders(inlineHeader);
                s.inlineHeaders(inlineHeader);
            }
            final CqPoller dcqT = CqPoller.of(cqT).attach(t.queue());
            final CqPoller dcqS = CqPoller.of(cqS).attach(s.queue());
            final CqeInjector injT = new CqeInjector(cqT);
            final CqeInjector injS = new CqeInjector(cqS);
            final int uidxT = EmulatedDevice.uidx(qpT.qpn());
            final int uidxS = EmulatedDevice.uidx(qpS.qpn());
            final MemoryRegion mr = "confined".equals(arena) ?
                rig.pd.register(own, own.allocate(1 << 16, 4096), Access.ALL_REMOTE) : rig.memory(1 << 16);
            final MemorySegment tmpl = mr.memory().asSlice(1001, UdpHeaderTemplate.LENGTH);  // odd: any alignment
            final UdpHeaderTemplate h = new UdpHeaderTemplate(tmpl).srcMac(0x020000000001L).srcIp(0x0a000001)
                .srcPort(7).multicast(0xef000001, 5000);
            final long payload = mr.address() + 2053;
            for (int i = 0; i < PAYLOAD; i++)
            {
                mr.memory().set(ValueLayout.JAVA_BYTE, 2053 + i, (byte) (7 * i + 3));
            }
            final MemorySegment ringT = qpT.rings().sq();
            final MemorySegment ringS = qpS.rings().sq();
            final int wqeCnt = qpT.rings().sqWqeCnt();
            final Completion c = new Completion();
            int wrapped = 0;
            for (int start = 0; start < 2 * wqeCnt; start++)
            {
                // inline and gather frames alternate; with the minimum inline header (1 and 3 WQEBBs, so every
                // inline frame would start at a multiple of 4 and never reach the ring end) two inline frames to one
                final boolean inline = inlineHeader < 0 ? start % 3 != 0 : start % 2 == 0;
                final int flags = SendFlags.SIGNALED | SendFlags.IP_CSUM | (inline ? SendFlags.INLINE : 0);
                h.prepare(PAYLOAD, start);
                ringT.fill((byte) 0x5a);
                ringS.fill((byte) 0x5a);
                final int pi = t.producerCounter();
                assertEquals(pi, s.producerCounter());
                assertTrue(t.send(start, h, mr.lkey(), payload, mr.lkey(), PAYLOAD, RawSendQueue.NO_VLAN, flags));
                assertTrue(s.begin(start, flags).sge(tmpl.address(), mr.lkey(), UdpHeaderTemplate.LENGTH)
                    .sge(payload, mr.lkey(), PAYLOAD).post());
                assertEquals(1, t.ring());
                assertEquals(1, s.ring());
                final byte[] a = ringT.toArray(ValueLayout.JAVA_BYTE);
                final byte[] b = ringS.toArray(ValueLayout.JAVA_BYTE);
                final int ctrl = (pi & (wqeCnt - 1)) * 64;
                for (int k = 4; k < 7; k++)
                {
                    b[ctrl + k] = a[ctrl + k];  // qpn_ds: each QP's own number
                }
                final int ds = a[ctrl + 7] & 0x3f;
                wrapped += ctrl + ds * 16 > a.length ? 1 : 0;
                assertArrayEquals(b, a, "send ring, frame at WQEBB " + (pi & (wqeCnt - 1)) + ", flags 0x" +
                    Integer.toHexString(flags));
                final int half = qpT.rings().bfSize();
                final byte[] regT = qpT.rings().bfReg().asSlice(0, 2L * half).toArray(ValueLayout.JAVA_BYTE);
                final byte[] regS = qpS.rings().bfReg().asSlice(0, 2L * half).toArray(ValueLayout.JAVA_BYTE);
                for (int k = 4; k < 7; k++)
                {
                    regS[k] = regT[k];
                    regS[half + k] = regT[half + k];
                }
                assertArrayEquals(regS, regT, "BlueFlame register");
                assertArrayEquals(qpS.rings().dbrec().toArray(ValueLayout.JAVA_BYTE),
                    qpT.rings().dbrec().toArray(ValueLayout.JAVA_BYTE), "doorbell record");
                final int after = t.producerCounter();
                injT.req(qpT.qpn(), uidxT, Mlx5Opcode.MLX5_OPCODE_SEND, pi, 0);
                injS.req(qpS.qpn(), uidxS, Mlx5Opcode.MLX5_OPCODE_SEND, pi, 0);
                assertEquals(1, dcqT.poll(c));
                assertEquals(start, c.wrId());
                assertEquals(1, dcqS.poll(c));
                assertEquals(start, c.wrId());
                assertEquals(after, s.producerCounter());
            }
            assertTrue(wrapped > 0, "no frame reached the ring end");
        }
    }

    /**
     * A template in a confined arena of another thread is read through its segment, which refuses this thread: the
     * send throws WrongThreadException and claims nothing, and the queue goes on (EthFrameEncoder takes raw loads only
     * from a confined template of the posting thread).
     */
    @ParameterizedTest(name = "inline header {0}")
    @ValueSource(ints = {UdpHeaderTemplate.LENGTH, -1})
    void anotherThreadsTemplateThrowsAndClaimsNothing(final int inlineHeader) throws InterruptedException
    {
        final UdpHeaderTemplate[] foreign = new UdpHeaderTemplate[1];
        final Thread owner = new Thread(() ->
        {
            // owned by this thread, which ends: the arena can never be closed (a test-sized leak)
            foreign[0] = template(Arena.ofConfined().allocate(UdpHeaderTemplate.LENGTH), 1);
        });
        owner.start();
        owner.join();
        refusedTemplateClaimsNothing(inlineHeader, foreign[0], WrongThreadException.class);
    }

    /**
     * A template is read into the WQE through its own segment unless its session is alive and confined to the
     * posting thread (EthFrameEncoder.copyTemplate): once its arena is closed, the send throws instead of reading
     * freed memory, and leaves the ring as it was (a claim is only a room check: the producer counter stays, and the
     * next frame posts in that place and completes). Whole header inline, part of it, and the device's minimum (0
     * bytes on this port unless MLX5EMU_ETH_MIN_INLINE=l2: the header then goes into the inline data segment).
     */
    @ParameterizedTest(name = "inline header {0}")
    @ValueSource(ints = {-1, 30, UdpHeaderTemplate.LENGTH})
    void closedTemplateThrowsAndClaimsNothing(final int inlineHeader)
    {
        final UdpHeaderTemplate gone;
        try (Arena arena = Arena.ofConfined())
        {
            gone = template(arena.allocate(UdpHeaderTemplate.LENGTH), 1);
        }
        refusedTemplateClaimsNothing(inlineHeader, gone, IllegalStateException.class);
    }

    private static UdpHeaderTemplate template(final MemorySegment memory, final int ipId)
    {
        final UdpHeaderTemplate t = new UdpHeaderTemplate(memory).srcMac(0x020000000001L).srcIp(0x0a000001)
            .srcPort(7).multicast(0xef000001, 5000);
        t.prepare(PAYLOAD, ipId);
        return t;
    }

    /** A send of the bad template throws {@code expected} and claims nothing; the next frame posts and completes. */
    private static void refusedTemplateClaimsNothing(final int inlineHeader, final UdpHeaderTemplate bad,
        final Class<? extends RuntimeException> expected)
    {
        try (Rig rig = new Rig())
        {
            Assumptions.assumeTrue(rig.roce, "raw packet QPs need an Ethernet port");
            final CompletionQueue cq = rig.cq(64);
            final QueuePair qp = rig.pd.createQp(config(cq));
            qp.activate(1);
            final RawSendQueue t = RawSendQueue.of(qp, DoorbellMode.AUTO);
            if (inlineHeader >= 0)
            {
                t.inlineHeaders(inlineHeader);
            }
            final CqPoller dcq = CqPoller.of(cq).attach(t.queue());
            final CqeInjector inj = new CqeInjector(cq);
            final MemoryRegion mr = rig.memory(1 << 16);
            final long payload = mr.address() + 2048;
            final int pi = t.producerCounter();
            final int flags = SendFlags.SIGNALED | SendFlags.INLINE;
            assertThrows(expected,
                () -> t.send(1, bad, mr.lkey(), payload, mr.lkey(), PAYLOAD, RawSendQueue.NO_VLAN, flags));
            assertEquals(pi, t.producerCounter(), "the failed send claimed ring space");
            final UdpHeaderTemplate live = template(mr.memory().asSlice(0, UdpHeaderTemplate.LENGTH), 2);
            assertTrue(t.send(2, live, mr.lkey(), payload, mr.lkey(), PAYLOAD, RawSendQueue.NO_VLAN, flags));
            assertEquals(1, t.ring());
            inj.req(qp.qpn(), EmulatedDevice.uidx(qp.qpn()), Mlx5Opcode.MLX5_OPCODE_SEND, pi, 0);
            final Completion c = new Completion();
            assertEquals(1, dcq.poll(c));
            assertEquals(2, c.wrId());
        }
    }

    private static QpConfig config(final CompletionQueue cq)
    {
        return QpConfig.builder(QpType.RAW_PACKET, cq).maxSendWr(16).maxRecvWr(4).maxSendSge(2).maxRecvSge(1)
            .maxInlineData(256).build();
    }
}
