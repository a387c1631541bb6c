// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvQpInitAttrEx;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.mlx5j.bindings.CTypes.U32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Two QPs created with identical attributes in one context: {@link #qpL} is posted only through libmlx5
 * (ibv_post_send through its function pointer, or ibv_wr_* on its ibv_qp_ex), {@link #qpJ} only through mlx5j. Each
 * has its own CQ, so the test can write a CQE into each (the device is idle: MLX5EMU_ENGINE=off) to retire WQEs on
 * both sides the same way. RC, UC and XRC_SEND twins are connected to each other, UD twins are in RTS; XRC_SEND
 * twins have no receive queue and name {@link #XRC_SRQN} in every WQE.
 */
final class Twin
{
    static final long RC_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_IMM |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_INV | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_READ |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IbvQpInitAttrEx.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
    static final long UC_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_IMM |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_INV | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE |
        IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
    static final long UD_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_IMM;
    /**
     * The remote XRC SRQ number XRC_SEND twins name in every WQE: 24 bits with every byte distinct, so that a byte
     * in the wrong place of the XRC segment shows.
     */
    static final int XRC_SRQN = 0x5a3c1d;

    final Rig rig;
    final QpType type;
    final boolean wrApi;
    final CompletionQueue cqL;
    final CompletionQueue cqJ;
    final QueuePair qpL;
    final QueuePair qpJ;
    final QpRing ringsL;
    final QpRing ringsJ;
    final SendQueue sqJ;
    final RecvQueue rqJ;
    /** Receive WQEs retired through injected CQEs so far: the wqe_counter of the next one. */
    int recvRetired;
    final CqPoller dcqJ;
    final CqeInjector injL;
    final CqeInjector injJ;
    final int uidxL;
    final int uidxJ;
    final MemoryRegion mr;
    final AddressHandle ah;
    final Arena arena = Arena.ofConfined();
    final MemorySegment wc = arena.allocate(IbvWc.LAYOUT);
    final Completion completion = new Completion();

    Twin(final Rig rig, final QpType type, final boolean wrApi, final int maxSendWr, final int maxSge,
        final int maxInline)
    {
        this.rig = rig;
        this.type = type;
        this.wrApi = wrApi;
        cqL = rig.cq(512);
        cqJ = rig.cq(512);
        final long ops = !wrApi ? 0 : type == QpType.RC || type == QpType.XRC_SEND ? RC_OPS
            : type == QpType.UC ? UC_OPS : UD_OPS;
        qpL = rig.pd.createQp(config(type, cqL, maxSendWr, maxSge, maxInline, ops));
        qpJ = rig.pd.createQp(config(type, cqJ, maxSendWr, maxSge, maxInline, ops));
        assertEquals(qpL.capabilities(), qpJ.capabilities(), "twins must get the same capabilities");
        if (type == QpType.UD)
        {
            rig.connect(qpL, qpL);
            rig.connect(qpJ, qpJ);
            ah = rig.pd.createAh(rig.path());
        }
        else
        {
            rig.connect(qpL, qpJ);
            ah = null;
        }
        ringsL = qpL.rings();
        ringsJ = qpJ.rings();
        assertEquals(ringsL.sqWqeCnt(), ringsJ.sqWqeCnt());
        assertEquals(ringsL.rqWqeCnt(), ringsJ.rqWqeCnt());
        assertEquals(ringsL.bfSize(), ringsJ.bfSize());
        // each twin writes its own BlueFlame register: their bytes are compared after every post
        assertNotEquals(ringsL.bfReg().address(), ringsJ.bfReg().address(), "twins share a BlueFlame register");
        sqJ = SendQueue.of(qpJ, DoorbellMode.AUTO);
        if (type == QpType.XRC_SEND)
        {
            // an XRC INI QP has no receive queue; every WQE names the SRQ (libmlx5: per WR, mlx5j: per queue)
            sqJ.xrcSrqn(XRC_SRQN);
            rqJ = null;
            dcqJ = CqPoller.of(cqJ).attach(sqJ);
        }
        else
        {
            rqJ = RecvQueue.of(qpJ);
            dcqJ = CqPoller.of(cqJ).attach(sqJ).attach(rqJ);
        }
        injL = new CqeInjector(cqL);
        injJ = new CqeInjector(cqJ);
        uidxL = EmulatedDevice.uidx(qpL.qpn());
        uidxJ = EmulatedDevice.uidx(qpJ.qpn());
        mr = rig.memory(1 << 16);
    }

    private static QpConfig config(final QpType type, final CompletionQueue cq, final int maxSendWr, final int maxSge,
        final int maxInline, final long ops)
    {
        final boolean xrc = type == QpType.XRC_SEND;
        return QpConfig.builder(type, cq).maxSendWr(maxSendWr).maxRecvWr(xrc ? 0 : 16).maxSendSge(maxSge)
            .maxRecvSge(xrc ? 0 : maxSge).maxInlineData(maxInline).sendOpsFlags(ops).build();
    }

    /**
     * A REQ CQE for the WQE starting at WQEBB {@code wqeCounter} on both twins, polled by libmlx5 and by mlx5j;
     * every ibv_wc field must agree (qp_num: each twin's own).
     */
    void retireSend(final int wqeOpcode, final int wqeCounter, final int byteCnt)
    {
        injL.req(qpL.qpn(), uidxL, wqeOpcode, wqeCounter, byteCnt);
        injJ.req(qpJ.qpn(), uidxJ, wqeOpcode, wqeCounter, byteCnt);
        pollBoth("REQ wqe_counter " + wqeCounter);
    }

    /** A RESP_SEND CQE for the oldest receive WQE on both twins. */
    void retireRecv(final int wqeCounter, final int byteCnt)
    {
        injL.respSend(qpL.qpn(), uidxL, wqeCounter, byteCnt, 0x123456);
        injJ.respSend(qpJ.qpn(), uidxJ, wqeCounter, byteCnt, 0x123456);
        pollBoth("RESP_SEND");
    }

    private void pollBoth(final String what)
    {
        wc.fill((byte) 0);
        assertEquals(1, InlineVerbs.ibv_poll_cq(cqL.pointer(), 1, wc), "libmlx5 polls the injected " + what);
        assertEquals(1, dcqJ.poll(completion), "mlx5j polls the injected " + what);
        WcFields.assertSame(wc, completion, qpL.qpn(), qpJ.qpn(), what);
        assertEquals(0, InlineVerbs.ibv_poll_cq(cqL.pointer(), 1, wc));
        assertEquals(0, dcqJ.poll(completion));
        // the consumer index each stack tells the NIC: dbrec[MLX5_CQ_SET_CI], big-endian, libmlx5's update_cons_index
        assertEquals(cqL.ring().dbrec().get(U32, 0), cqJ.ring().dbrec().get(U32, 0), "CQ consumer index after " + what);
    }

    /** Current libmlx5 view of the SQ producer: the send doorbell record (big-endian low 16 bits of cur_post). */
    static int sendDbrec(final QpRing r)
    {
        return Integer.reverseBytes(r.dbrec().get(U32, 4)) & 0xffff;
    }
}
