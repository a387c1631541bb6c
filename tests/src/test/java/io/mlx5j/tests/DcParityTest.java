// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvQpInitAttrEx;
import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.Mlx5Opcode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Byte parity of the DC initiator's send path: twin DCIs in one context, one posted by libmlx5 (ibv_wr_* on its
 * ibv_qp_ex plus mlx5dv_wr_set_dc_addr on its mlx5dv_qp_ex), the other by mlx5j's SendQueue with dcDestination.
 * For every opcode a DCI carries (SEND, SEND_IMM, RDMA WRITE, RDMA WRITE_IMM, RDMA READ, compare and swap, fetch and
 * add), 1 and 2 SGEs (atomics: 1), the 4 FENCE/SOLICITED combinations (all signaled: each WQE is retired by its own
 * CQE) and two DC targets (DCT number and key) taken alternately, the whole send ring (poisoned before every post)
 * and the send doorbell record must be equal, except the QPN in qpn_ds (ctrl bytes 4..6), which must be each twin's
 * own. The ring is 16 WQEBBs and a DCI WQE takes 2, so the matrix wraps the ring several times. Each WQE is retired
 * through a CQE written into each twin's CQ (the device is idle, MLX5EMU_ENGINE=off), polled by libmlx5 and by
 * mlx5j with every ibv_wc field equal. Not compared: the BlueFlame register.
 */
@Tag("parity")
class DcParityTest
{
    private static final long DC_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_IMM | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_READ |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IbvQpInitAttrEx.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
    private static final int[] MLX5_OPCODES = {Mlx5Opcode.MLX5_OPCODE_SEND, Mlx5Opcode.MLX5_OPCODE_SEND_IMM,
        Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM, Mlx5Opcode.MLX5_OPCODE_RDMA_READ,
        Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS, Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA};
    private static final int[] DCTN = {0x00abcd, 0x123456};
    private static final long[] DC_KEY = {0x0123456789abcdefL, 0xfedcba9876543210L};
    private static final byte POISON = (byte) 0xa5;

    @Test
    void everyDcOpcodeWritesLibmlx5sBytes() throws Exception
    {
        try (Rig rig = new Rig(); Arena arena = Arena.ofConfined())
        {
            final CompletionQueue cqL = rig.cq(256);
            final CompletionQueue cqJ = rig.cq(256);
            final QueuePair qpL = rig.pd.createQp(config(cqL));
            final QueuePair qpJ = rig.pd.createQp(config(cqJ));
            assertEquals(qpL.capabilities(), qpJ.capabilities(), "twins must get the same capabilities");
            qpL.activateDc(1, 0, rig.port.activeMtu(), null);
            qpJ.activateDc(1, 0, rig.port.activeMtu(), null);
            final AddressHandle ah = rig.pd.createAh(rig.path());
            final QpRing ringsL = qpL.rings();
            final QpRing ringsJ = qpJ.rings();
            assertEquals(16, ringsL.sqWqeCnt());
            assertEquals(ringsL.sqWqeCnt(), ringsJ.sqWqeCnt());
            final SendQueue sqJ = SendQueue.of(qpJ, DoorbellMode.AUTO);
            final CqPoller pollerJ = CqPoller.of(cqJ).attach(sqJ);
            final CqeInjector injL = new CqeInjector(cqL);
            final CqeInjector injJ = new CqeInjector(cqJ);
            final int uidxL = EmulatedDevice.uidx(qpL.qpn());
            final int uidxJ = EmulatedDevice.uidx(qpJ.qpn());
            final MemorySegment qpx = qpL.qpEx();
            final MemorySegment mqp = Mlx5dv.mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
            assertTrue(mqp.address() != 0, "mlx5dv_qp_ex_from_ibv_qp_ex");
            final MemoryRegion mr = rig.memory(1 << 16);
            final MemorySegment sges = arena.allocate(IbvSge.LAYOUT, 2);
            final MemorySegment wc = arena.allocate(IbvWc.LAYOUT);
            final Completion completion = new Completion();
            int cases = 0;
            long wrId = 1;
            for (final int opcode : MLX5_OPCODES)
            {
                final boolean atomic = opcode == Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS ||
                    opcode == Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA;
                for (int sgeCount = 1; sgeCount <= (atomic ? 1 : 2); sgeCount++)
                {
                    for (int f = 0; f < 4; f++)
                    {
                        final int target = cases & 1;
                        final int flags = SendFlags.SIGNALED | ((f & 1) != 0 ? SendFlags.FENCE : 0) |
                            ((f & 2) != 0 ? SendFlags.SOLICITED : 0);
                        final int ibvFlags = IbvSendWr.IBV_SEND_SIGNALED | ((f & 1) != 0 ? IbvSendWr.IBV_SEND_FENCE
                            : 0) | ((f & 2) != 0 ? IbvSendWr.IBV_SEND_SOLICITED : 0);
                        final long raddr = mr.address() + 0x8000 + cases * 8L;
                        final int imm = 0x5a000000 | cases;
                        final long a0 = 0x1111000000000000L | cases;
                        final long a1 = 0x2222000000000000L | cases;
                        final int[] len = atomic ? new int[] {8} : new int[] {100 + cases, 7 + f};
                        final long[] addr = {mr.address() + 64L * cases, mr.address() + 0x4000 + 64L * cases};
                        poison(ringsL.sq(), ringsJ.sq());
                        final int counter = sqJ.producerCounter();
                        // libmlx5: opcode builder, DC address, SGEs
                        InlineVerbs.ibv_wr_start(qpx);
                        InlineVerbs.wrId(qpx, wrId);
                        InlineVerbs.wrFlags(qpx, ibvFlags);
                        switch (opcode)
                        {
                            case Mlx5Opcode.MLX5_OPCODE_SEND -> InlineVerbs.ibv_wr_send(qpx);
                            case Mlx5Opcode.MLX5_OPCODE_SEND_IMM ->
                                InlineVerbs.ibv_wr_send_imm(qpx, Integer.reverseBytes(imm));
                            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE -> InlineVerbs.ibv_wr_rdma_write(qpx, mr.rkey(),
                                raddr);
                            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM -> InlineVerbs.ibv_wr_rdma_write_imm(qpx,
                                mr.rkey(), raddr, Integer.reverseBytes(imm));
                            case Mlx5Opcode.MLX5_OPCODE_RDMA_READ -> InlineVerbs.ibv_wr_rdma_read(qpx, mr.rkey(),
                                raddr);
                            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS -> InlineVerbs.ibv_wr_atomic_cmp_swp(qpx,
                                mr.rkey(), raddr, a1, a0);
                            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA -> InlineVerbs.ibv_wr_atomic_fetch_add(qpx,
                                mr.rkey(), raddr, a0);
                            default -> fail("opcode " + opcode);
                        }
                        Mlx5dv.mlx5dv_wr_set_dc_addr(mqp, ah.pointer(), DCTN[target], DC_KEY[target]);
                        for (int i = 0; i < len.length; i++)
                        {
                            final long at = i * IbvSge.LAYOUT.byteSize();
                            sges.set(U64, at + IbvSge.ADDR_OFFSET, addr[i]);
                            sges.set(U32, at + IbvSge.LENGTH_OFFSET, len[i]);
                            sges.set(U32, at + IbvSge.LKEY_OFFSET, mr.lkey());
                        }
                        InlineVerbs.ibv_wr_set_sge_list(qpx, len.length, sges);
                        assertEquals(0, InlineVerbs.ibv_wr_complete(qpx), "ibv_wr_complete");
                        // mlx5j: the staging form with the DC target
                        sqJ.begin(wrId, opcode, flags);
                        switch (opcode)
                        {
                            case Mlx5Opcode.MLX5_OPCODE_SEND_IMM -> sqJ.imm(imm);
                            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, Mlx5Opcode.MLX5_OPCODE_RDMA_READ ->
                                sqJ.remote(raddr, mr.rkey());
                            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM -> sqJ.remote(raddr, mr.rkey()).imm(imm);
                            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS ->
                                sqJ.remote(raddr, mr.rkey()).compareSwapOperands(a1, a0);
                            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA -> sqJ.remote(raddr, mr.rkey()).fetchAddOperand(a0);
                            default ->
                            {
                            }
                        }
                        sqJ.dcDestination(ah, DCTN[target], DC_KEY[target]);
                        for (int i = 0; i < len.length; i++)
                        {
                            sqJ.sge(addr[i], mr.lkey(), len[i]);
                        }
                        assertTrue(sqJ.post(), "mlx5j post");
                        assertEquals(1, sqJ.ring());
                        final String what = "opcode 0x" + Integer.toHexString(opcode) + " sges " + sgeCount +
                            " flags " + f + " target " + target + " at WQEBB " + (counter & 15);
                        compareRings(ringsL, ringsJ, (counter & 15) * 64, opcode, what);
                        // retire the WQE on both twins
                        final int bytes = atomic ? 8 : len[0] + (len.length > 1 ? len[1] : 0);
                        injL.req(qpL.qpn(), uidxL, opcode, counter, bytes);
                        injJ.req(qpJ.qpn(), uidxJ, opcode, counter, bytes);
                        wc.fill((byte) 0);
                        assertEquals(1, InlineVerbs.ibv_poll_cq(cqL.pointer(), 1, wc), "libmlx5 polls " + what);
                        assertEquals(1, pollerJ.poll(completion), "mlx5j polls " + what);
                        WcFields.assertSame(wc, completion, qpL.qpn(), qpJ.qpn(), what);
                        wrId++;
                        cases++;
                    }
                }
            }
            assertEquals(5 * 2 * 4 + 2 * 4, cases, "the matrix shrank");
            assertTrue(sqJ.producerCounter() > 4 * ringsJ.sqWqeCnt(), "the ring did not wrap several times");
        }
    }

    @Test
    void aDciRefusesUdDestinationsAndMissingTargets()
    {
        try (Rig rig = new Rig())
        {
            final CompletionQueue cq = rig.cq(64);
            final QueuePair dci = rig.pd.createQp(config(cq));
            dci.activateDc(1, 0, rig.port.activeMtu(), null);
            final AddressHandle ah = rig.pd.createAh(rig.path());
            final SendQueue sq = SendQueue.of(dci, DoorbellMode.AUTO);
            final MemoryRegion mr = rig.memory(4096);
            final IllegalArgumentException noTarget = assertThrows(IllegalArgumentException.class,
                () -> sq.begin(1, Mlx5Opcode.MLX5_OPCODE_SEND, 0).sge(mr.address(), mr.lkey(), 8).post());
            assertTrue(noTarget.getMessage().contains("without dcDestination(ah, dctn, dcKey)"), noTarget.getMessage());
            final IllegalArgumentException ud = assertThrows(IllegalArgumentException.class,
                () -> sq.begin(1, Mlx5Opcode.MLX5_OPCODE_SEND, 0).destination(ah, 5, 7).sge(mr.address(),
                    mr.lkey(), 8).post());
            assertTrue(ud.getMessage().contains("dcDestination"), ud.getMessage());
            final IllegalArgumentException inv = assertThrows(IllegalArgumentException.class,
                () -> sq.begin(1, Mlx5Opcode.MLX5_OPCODE_SEND_INVAL, 0).dcDestination(ah, 5, 7)
                    .sge(mr.address(), mr.lkey(), 8).post());
            assertTrue(inv.getMessage().contains("cannot post mlx5 opcode 0x1"), inv.getMessage());
            assertEquals(0, sq.producerCounter(), "a refused WR wrote nothing");
        }
    }

    static QpConfig config(final CompletionQueue cq)
    {
        return QpConfig.builder(QpType.DCI, cq).maxSendWr(8).maxSendSge(2).maxInlineData(0).sendOpsFlags(DC_OPS)
            .build();
    }

    private static void poison(final MemorySegment a, final MemorySegment b)
    {
        a.fill(POISON);
        b.fill(POISON);
    }

    /**
     * Bytes of the WQE (from its ctrl segment) libmlx5's ibv_wr_* path leaves as they were (SendWr#staleOffsets):
     * the ctrl segment's immediate for opcodes without one, and the compare operand of FETCH_ADD (after ctrl,
     * datagram and raddr: 80 + 8). mlx5j writes zeros there.
     */
    private static boolean stale(final int opcode, final int rel)
    {
        final boolean immOp = opcode == Mlx5Opcode.MLX5_OPCODE_SEND_IMM ||
            opcode == Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM;
        return (!immOp && rel >= 12 && rel < 16) ||
            (opcode == Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA && rel >= 88 && rel < 96);
    }

    private static void compareRings(final QpRing l, final QpRing j, final int start, final int opcode,
        final String what)
    {
        final byte[] bl = l.sq().toArray(ValueLayout.JAVA_BYTE);
        final byte[] bj = j.sq().toArray(ValueLayout.JAVA_BYTE);
        final int qpnL = l.qpn();
        final int qpnJ = j.qpn();
        for (int i = 0; i < bl.length; i++)
        {
            final int inBb = i & 63;
            final int rel = (i - start) & (bl.length - 1);
            if (rel < 128 && stale(opcode, rel))
            {
                assertEquals(POISON, bl[i], what + ": libmlx5 wrote byte " + rel + " of the WQE");
                assertEquals(0, bj[i], what + ": mlx5j's byte " + rel + " of the WQE");
                continue;
            }
            if (bl[i] != bj[i])
            {
                // qpn_ds bytes 4..6 of a ctrl segment: each twin's own QPN
                final boolean qpnByte = inBb >= 4 && inBb <= 6 &&
                    (bl[i] & 0xff) == ((qpnL >>> (8 * (6 - inBb))) & 0xff) &&
                    (bj[i] & 0xff) == ((qpnJ >>> (8 * (6 - inBb))) & 0xff);
                if (!qpnByte)
                {
                    fail(what + ": ring byte " + i + " (WQEBB " + (i >>> 6) + " offset " + inBb + ") libmlx5 0x" +
                        Integer.toHexString(bl[i] & 0xff) + " mlx5j 0x" + Integer.toHexString(bj[i] & 0xff));
                }
            }
        }
        assertEquals(l.dbrec().get(U32, 4), j.dbrec().get(U32, 4), what + ": send doorbell record");
    }
}
