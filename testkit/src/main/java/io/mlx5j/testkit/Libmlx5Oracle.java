// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvAhAttr;
import io.mlx5j.bindings.IbvDataBuf;
import io.mlx5j.bindings.IbvGid;
import io.mlx5j.bindings.IbvGlobalRoute;
import io.mlx5j.bindings.IbvMr;
import io.mlx5j.bindings.IbvPortAttr;
import io.mlx5j.bindings.IbvQp;
import io.mlx5j.bindings.IbvQpAttr;
import io.mlx5j.bindings.IbvQpCap;
import io.mlx5j.bindings.IbvQpInitAttrEx;
import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.bindings.IbvSge;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.IbvWc;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvCq;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Mlx5dvQp;
import io.mlx5j.bindings.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * "The bytes libmlx5 writes for this work request on a QP of this geometry": posts a {@link WorkRequest} through
 * libmlx5 itself, {@code ibv_post_send} (through the QP's function pointer) or the {@code ibv_wr_*} builders of
 * {@code ibv_qp_ex}, and returns the WQE it left in the send ring with the bytes libmlx5 leaves unwritten marked
 * ({@link ExpectedWqe}). The twin-QP method of mlx5j's parity tests, reduced to its libmlx5 half: an encoder under test
 * is compared with libmlx5, not with itself.
 * <p>
 * Needs a device: the emulated ConnectX (libmlx5emu.so in LD_PRELOAD, see docs/testkit.md) or real hardware. Each
 * {@link #expect} posts on a fresh QP of the geometry, connected to itself (RC, UC), in RTS (UD, raw packet). By
 * default the WQE starts at WQEBB 0; {@link #expect(int, WorkRequest...)} first moves the fresh QP's producer index to
 * a given value with single-WQEBB filler WQEs, each retired through the CQ, so that a WQE can start in the last
 * WQEBBs of the ring and continue at its start as libmlx5 writes it there. Whether the device then executes the WQE
 * under test does not matter: the device never writes the send ring. The fillers must complete: on a device that
 * executes them they do; with the emulator's engine off (MLX5EMU_ENGINE=off, the byte-parity setting, where nothing
 * else writes the oracle's CQ) the oracle writes each filler's REQ CQE itself, as the device would. The UD address
 * handle points at the oracle's own port (IB: its LID; Ethernet: GID index 1, RoCE v2). Not thread-safe: one oracle
 * per thread.
 */
public final class Libmlx5Oracle implements AutoCloseable
{
    /** Which libmlx5 posting path the oracle drives. */
    public enum Api
    {
        /** {@code ibv_post_send} (qp.c _mlx5_post_send). */
        POST_SEND,
        /** {@code ibv_wr_start}, the opcode builder, setters, {@code ibv_wr_complete} (qp.c mlx5_send_wr_*). */
        WR
    }

    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int QKEY = 0x11111111;
    private static final int IBV_QPT_RC = 2;
    private static final int IBV_QPT_UC = 3;
    private static final int IBV_QPT_UD = 4;
    private static final int IBV_QPT_RAW_PACKET = 8;
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The registered region: {@link #memory()} (64 KiB), then the fillers' frame. */
    private static final int MEMORY = 1 << 16;
    private static final int FILLER_FRAME = 60;
    /** mlx5dv.h MLX5_OPCODE_RDMA_WRITE / MLX5_OPCODE_SEND: a filler's opcode, as its REQ CQE names it. */
    private static final int MLX5_OPCODE_RDMA_WRITE = 0x08;
    private static final int MLX5_OPCODE_SEND = 0x0a;
    /** How long a filler may take to complete on a device that executes it. */
    private static final long FILLER_TIMEOUT_NANOS = 10_000_000_000L;
    private static final long FILLER_WR_ID = 0xf111e4L;
    private static final long RC_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_IMM
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_INV | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_READ
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IbvQpInitAttrEx.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
    private static final long UC_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_IMM
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_INV | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
    private static final long UD_OPS = IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND
        | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND_WITH_IMM;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment state = CallState.allocate(arena);
    private final QpKind kind;
    private final Api api;
    private final int maxSendWr;
    private final int maxSendSge;
    private final int maxInlineData;
    private final MemorySegment context;
    private final MemorySegment pd;
    private final MemorySegment cq;
    private final MemorySegment mr;
    private final MemorySegment memory;
    private final MemorySegment region;
    private final MemorySegment ah;
    private final boolean idle = isIdle();
    private MemorySegment cqBuf;
    private int cqeCnt;
    private int cqeSize;
    private int cqeProduced;
    /** Fillers posted on the current QP: the wqe_counter of the next one (each takes one WQEBB). */
    private int fillersOfLastQp;
    private int lastUidx;
    private final boolean ethernet;
    private final int lid;
    private final int activeMtu;
    private final MemorySegment gid;
    private final int gidIndex;
    private int lastQpn;

    private Libmlx5Oracle(final QpKind kind, final Api api, final int maxSendWr, final int maxSendSge,
        final int maxInlineData)
    {
        this.kind = kind;
        this.api = api;
        this.maxSendWr = maxSendWr;
        this.maxSendSge = maxSendSge;
        this.maxInlineData = maxInlineData;
        final MemorySegment num = arena.allocate(C_INT);
        final MemorySegment list = Verbs.ibv_get_device_list(state, num);
        if (list.address() == 0 || num.get(C_INT, 0) == 0)
        {
            throw new IllegalStateException("no RDMA device: run on the emulated ConnectX (LD_PRELOAD=libmlx5emu.so, "
                + "see docs/testkit.md) or on an mlx5 NIC");
        }
        try
        {
            context = check(Verbs.ibv_open_device(state, list.reinterpret(8).get(C_POINTER, 0)), "ibv_open_device");
        }
        finally
        {
            Verbs.ibv_free_device_list(list);
        }
        final MemorySegment port = arena.allocate(IbvPortAttr.LAYOUT);
        checkRc(InlineVerbs.ibv_query_port(context, (byte)1, port), "ibv_query_port");
        ethernet = port.get(U8, IbvPortAttr.LINK_LAYER_OFFSET) == IbvPortAttr.IBV_LINK_LAYER_ETHERNET;
        lid = port.get(U16, IbvPortAttr.LID_OFFSET) & 0xffff;
        activeMtu = port.get(C_INT, IbvPortAttr.ACTIVE_MTU_OFFSET);
        gidIndex = ethernet ? 1 : 0;
        gid = arena.allocate(IbvGid.LAYOUT);
        checkRc(Verbs.ibv_query_gid(state, context, (byte)1, gidIndex, gid), "ibv_query_gid");
        pd = check(Verbs.ibv_alloc_pd(state, context), "ibv_alloc_pd");
        region = arena.allocate(MEMORY + 4096, 4096);
        memory = region.asSlice(0, MEMORY);
        mr = check(Verbs.ibv_reg_mr(state, pd, region, region.byteSize(), IbvMr.IBV_ACCESS_LOCAL_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ | IbvMr.IBV_ACCESS_REMOTE_ATOMIC),
            "ibv_reg_mr").reinterpret(IbvMr.LAYOUT.byteSize());
        cq = check(Verbs.ibv_create_cq(state, context, 256, MemorySegment.NULL, MemorySegment.NULL, 0),
            "ibv_create_cq");
        if (kind == QpKind.UD)
        {
            final MemorySegment attr = arena.allocate(IbvAhAttr.LAYOUT);
            path(attr);
            ah = check(Verbs.ibv_create_ah(state, pd, attr), "ibv_create_ah");
        }
        else
        {
            ah = MemorySegment.NULL;
        }
    }

    /**
     * An oracle for QPs of type {@code kind} created with these capabilities (struct ibv_qp_cap: max_send_wr,
     * max_send_sge, max_inline_data; libmlx5 sizes the WQE and the ring from them), posting through {@code api}.
     *
     * @param kind the QP type
     * @param api the libibverbs posting API to use
     * @param maxSendWr {@code max_send_wr}
     * @param maxSendSge {@code max_send_sge}
     * @param maxInlineData {@code max_inline_data}
     * @return the oracle; close it to free the device objects
     */
    public static Libmlx5Oracle open(final QpKind kind, final Api api, final int maxSendWr, final int maxSendSge,
        final int maxInlineData)
    {
        return new Libmlx5Oracle(kind, api, maxSendWr, maxSendSge, maxInlineData);
    }

    /** {@return the lkey of a 64 KiB region the oracle registered, for gather entries that name a real MR} */
    public int lkey()
    {
        return mr.get(U32, IbvMr.LKEY_OFFSET);
    }

    /** {@return the registered region {@link #lkey()} covers (inline payloads and raw frames may live there)} */
    public MemorySegment memory()
    {
        return memory;
    }

    /** {@return the QP number of the QP the last {@link #expect} posted on} */
    public int lastQpn()
    {
        return lastQpn;
    }

    /** {@return whether port 1 is Ethernet (RoCE, raw packet QPs) rather than InfiniBand} */
    public boolean ethernet()
    {
        return ethernet;
    }

    /**
     * Posts {@code wr} through libmlx5 on a fresh QP and returns the WQE libmlx5 wrote (wqe_index 0, the fresh QP's
     * number in qpn_ds) with its unwritten bytes marked ({@link ExpectedWqe} states the rule).
     *
     * @param wr the work request
     * @return the expected WQE
     * @throws IllegalArgumentException when libmlx5 refuses the work request (too large for the geometry, ...)
     * @throws IllegalStateException when the device refuses a verb the oracle needs
     */
    public ExpectedWqe expect(final WorkRequest wr)
    {
        return expect(0, wr).get(0);
    }

    /**
     * Posts {@code wrs} as one list (one {@code ibv_post_send} of a chained list, or one {@code ibv_wr_start} ...
     * {@code ibv_wr_complete}) on a fresh QP whose producer index was first moved to {@code producerIndex}, and
     * returns the WQEs libmlx5 wrote, in order: the first at WQEBB {@code producerIndex & (wqe_cnt - 1)} with
     * wqe_index {@code producerIndex & 0xffff}, each read across the end of the ring where it wraps
     * ({@link WqeDump#linearize}). The producer index is moved with {@code producerIndex} single-WQEBB signaled
     * fillers posted through {@code ibv_post_send} (RC, UC: an RDMA WRITE of no bytes to the oracle's region; UD: a
     * SEND of no bytes to the QP itself; raw packet: a 60-byte frame of zeros), each retired through the CQ before
     * the next (see the class comment for who writes its CQE).
     *
     * @param producerIndex the send queue's producer index (libmlx5's sq.cur_post) before the first WQE, 0..65535
     * @param wrs           the work requests, posted as one list
     * @return the expected WQEs, one per work request, in order
     * @throws IllegalArgumentException when {@code wrs} is empty, the index is out of range, or libmlx5 refuses a
     *                                  work request
     * @throws IllegalStateException    when a filler does not complete (on a device that executes WQEs: within 10 s)
     */
    public List<ExpectedWqe> expect(final int producerIndex, final WorkRequest... wrs)
    {
        if (wrs.length == 0)
        {
            throw new IllegalArgumentException("no work request to post");
        }
        if (producerIndex < 0 || producerIndex > 0xffff)
        {
            throw new IllegalArgumentException("producer index " + producerIndex + " is not in 0..65535 (wqe_index is"
                + " 16 bits)");
        }
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment qp = createQp(a);
            try
            {
                lastQpn = qp.reinterpret(IbvQp.LAYOUT.byteSize()).get(U32, IbvQp.QP_NUM_OFFSET);
                fillersOfLastQp = 0;
                connect(qp, a);
                final MemorySegment dv = a.allocate(Mlx5dvQp.LAYOUT);
                final MemorySegment obj = a.allocate(Mlx5dvObj.LAYOUT);
                obj.set(C_POINTER, Mlx5dvObj.QP_IN_OFFSET, qp);
                obj.set(C_POINTER, Mlx5dvObj.QP_OUT_OFFSET, dv);
                checkRc(Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_QP), "mlx5dv_init_obj");
                final int wqeCnt = dv.get(U32, Mlx5dvQp.SQ_WQE_CNT_OFFSET);
                final MemorySegment sq = dv.get(C_POINTER, Mlx5dvQp.SQ_BUF_OFFSET)
                    .reinterpret((long)wqeCnt * WqeDump.MLX5_SEND_WQE_BB);
                for (int i = 0; i < producerIndex; i++)
                {
                    filler(qp, a);
                }
                if (api == Api.POST_SEND)
                {
                    MemorySegment next = MemorySegment.NULL;
                    for (int i = wrs.length - 1; i >= 0; i--)
                    {
                        final MemorySegment wr = build(wrs[i], a);
                        wr.set(C_POINTER, IbvSendWr.NEXT_OFFSET, next);
                        next = wr;
                    }
                    final int rc = InlineVerbs.ibv_post_send(qp, next, a.allocate(C_POINTER));
                    if (rc != 0)
                    {
                        throw new IllegalArgumentException("libmlx5 refused " + List.of(wrs) + ": ibv_post_send "
                            + "returned " + rc + " (" + (rc == 12 ? "ENOMEM: too large for this QP" : "EINVAL") + ")");
                    }
                }
                else
                {
                    postWr(qp, wrs, a);
                }
                final List<ExpectedWqe> out = new ArrayList<>(wrs.length);
                int pi = producerIndex;
                for (final WorkRequest wr : wrs)
                {
                    final byte[] bytes = WqeDump.linearize(sq, wqeCnt, pi & (wqeCnt - 1));
                    out.add(new ExpectedWqe(bytes, kind, unwritten(bytes, wr)));
                    pi += (bytes.length + WqeDump.MLX5_SEND_WQE_BB - 1) / WqeDump.MLX5_SEND_WQE_BB;
                }
                return out;
            }
            finally
            {
                Verbs.ibv_destroy_qp(qp);
            }
        }
    }

    /**
     * The number of WQEBBs in the send ring of a QP of this oracle's geometry (libmlx5's sq.wqe_cnt, a power of two):
     * producer indexes {@code sendRingWqebbs() - 1} and below the ring's end are where a multi-WQEBB WQE wraps.
     *
     * @return the send ring's WQEBB count
     * @throws IllegalStateException when the device refuses the QP
     */
    public int sendRingWqebbs()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment qp = createQp(a);
            try
            {
                final MemorySegment dv = a.allocate(Mlx5dvQp.LAYOUT);
                final MemorySegment obj = a.allocate(Mlx5dvObj.LAYOUT);
                obj.set(C_POINTER, Mlx5dvObj.QP_IN_OFFSET, qp);
                obj.set(C_POINTER, Mlx5dvObj.QP_OUT_OFFSET, dv);
                checkRc(Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_QP), "mlx5dv_init_obj");
                return dv.get(U32, Mlx5dvQp.SQ_WQE_CNT_OFFSET);
            }
            finally
            {
                Verbs.ibv_destroy_qp(qp);
            }
        }
    }

    /** One single-WQEBB signaled WQE through ibv_post_send, retired through the CQ before it returns. */
    private void filler(final MemorySegment qp, final Arena a)
    {
        final MemorySegment wr = a.allocate(IbvSendWr.LAYOUT);
        final MemorySegment sge = a.allocate(IbvSge.LAYOUT);
        wr.set(U64, IbvSendWr.WR_ID_OFFSET, FILLER_WR_ID);
        wr.set(C_INT, IbvSendWr.SEND_FLAGS_OFFSET, WorkRequest.IBV_SEND_SIGNALED);
        final int mlx5Opcode;
        switch (kind)
        {
            case RC, UC ->
            {
                wr.set(C_INT, IbvSendWr.OPCODE_OFFSET, WorkRequest.IBV_WR_RDMA_WRITE);
                wr.set(U64, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET, memory.address());
                wr.set(U32, IbvSendWr.RDMA_RKEY_OFFSET, mr.get(U32, IbvMr.RKEY_OFFSET));
                mlx5Opcode = MLX5_OPCODE_RDMA_WRITE;
            }
            case UD ->
            {
                wr.set(C_INT, IbvSendWr.OPCODE_OFFSET, WorkRequest.IBV_WR_SEND);
                wr.set(C_POINTER, IbvSendWr.UD_AH_OFFSET, ah);
                wr.set(U32, IbvSendWr.UD_REMOTE_QPN_OFFSET, lastQpn);
                wr.set(U32, IbvSendWr.UD_REMOTE_QKEY_OFFSET, QKEY);
                mlx5Opcode = MLX5_OPCODE_SEND;
            }
            default ->
            {
                region.asSlice(MEMORY, FILLER_FRAME).fill((byte)0);
                sge.set(U64, IbvSge.ADDR_OFFSET, region.address() + MEMORY);
                sge.set(U32, IbvSge.LENGTH_OFFSET, FILLER_FRAME);
                sge.set(U32, IbvSge.LKEY_OFFSET, lkey());
                wr.set(C_POINTER, IbvSendWr.SG_LIST_OFFSET, sge);
                wr.set(C_INT, IbvSendWr.NUM_SGE_OFFSET, 1);
                wr.set(C_INT, IbvSendWr.OPCODE_OFFSET, WorkRequest.IBV_WR_SEND);
                mlx5Opcode = MLX5_OPCODE_SEND;
            }
        }
        final int rc = InlineVerbs.ibv_post_send(qp, wr, a.allocate(C_POINTER));
        if (rc != 0)
        {
            throw new IllegalStateException("libmlx5 refused a filler WQE: ibv_post_send returned " + rc);
        }
        final MemorySegment wc = a.allocate(IbvWc.LAYOUT);
        if (idle)
        {
            injectReq(mlx5Opcode, a);
        }
        final long deadline = System.nanoTime() + FILLER_TIMEOUT_NANOS;
        while (true)
        {
            final int n = InlineVerbs.ibv_poll_cq(cq, 1, wc);
            if (n < 0)
            {
                throw new IllegalStateException("ibv_poll_cq failed: " + n);
            }
            if (n == 1 && wc.get(U64, IbvWc.WR_ID_OFFSET) == FILLER_WR_ID)
            {
                final int status = wc.get(C_INT, IbvWc.STATUS_OFFSET);
                if (status != 0)
                {
                    throw new IllegalStateException("a filler WQE completed with ibv_wc_status " + status);
                }
                return;
            }
            if (n == 0 && (idle || System.nanoTime() - deadline > 0))
            {
                throw new IllegalStateException("a filler WQE did not complete" + (idle ? " (MLX5EMU_ENGINE=off: "
                    + "the oracle wrote its CQE)" : " within 10 s"));
            }
            if (n == 0)
            {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Writes a successful REQ CQE for the last QP's next WQE into the oracle's CQ, as the device would (struct
     * mlx5_cqe64 in mlx5dv.h: srqn_uidx carries the user index under CQE version 1, sop_drop_qpn, wqe_counter, and
     * op_own with the owner bit of the pass, stored last). Only with the engine off, where nothing else writes there.
     */
    private void injectReq(final int mlx5Opcode, final Arena a)
    {
        if (cqBuf == null)
        {
            final MemorySegment dv = a.allocate(Mlx5dvCq.LAYOUT);
            final MemorySegment obj = a.allocate(Mlx5dvObj.LAYOUT);
            obj.set(C_POINTER, Mlx5dvObj.CQ_IN_OFFSET, cq);
            obj.set(C_POINTER, Mlx5dvObj.CQ_OUT_OFFSET, dv);
            checkRc(Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_CQ), "mlx5dv_init_obj (CQ)");
            cqeCnt = dv.get(U32, Mlx5dvCq.CQE_CNT_OFFSET);
            cqeSize = dv.get(U32, Mlx5dvCq.CQE_SIZE_OFFSET);
            cqBuf = dv.get(C_POINTER, Mlx5dvCq.BUF_OFFSET).reinterpret((long)cqeCnt * cqeSize);
        }
        if (fillersOfLastQp == 0)
        {
            lastUidx = EmulatedDevice.uidx(lastQpn);   // a look-up in the emulated kernel: once per QP
        }
        final int counter = fillersOfLastQp++;
        final long at = (long)(cqeProduced & (cqeCnt - 1)) * cqeSize;
        final long c = at + cqeSize - 64;
        cqBuf.asSlice(at, cqeSize).fill((byte)0);
        cqBuf.set(BE32, c + 0x20, lastUidx & 0xffffff);
        cqBuf.set(BE32, c + 0x38, (mlx5Opcode << 24) | (lastQpn & 0xffffff));
        cqBuf.set(BE16, c + 0x3c, (short)counter);
        final int owner = (cqeProduced / cqeCnt) & 1;
        java.lang.invoke.VarHandle.releaseFence();
        cqBuf.set(U8, c + 0x3f, (byte)owner);   // opcode MLX5_CQE_REQ (0) in the high nibble
        cqeProduced++;
    }

    /** The rule of {@link ExpectedWqe}, applied to the fields of libmlx5's WQE. */
    private boolean[] unwritten(final byte[] bytes, final WorkRequest wr)
    {
        final boolean[] mask = new boolean[bytes.length];
        int ethStart = -1;
        for (final WqeField f : WqeDump.send(bytes, kind).fields())
        {
            if (f.segment().equals("eth") && ethStart < 0)
            {
                ethStart = f.offset();
            }
            final boolean skip = switch (f.name())
            {
                case "imm" -> f.segment().equals("ctrl") && api == Api.WR && !wr.hasImm();
                case "compare" -> f.segment().equals("atomic")
                    && wr.opcode() == WorkRequest.IBV_WR_ATOMIC_FETCH_AND_ADD;
                case "pad" -> true;
                default -> false;
            };
            if (skip)
            {
                for (int i = f.offset(); i < f.offset() + f.length() && i < mask.length; i++)
                {
                    // libmlx5 zeroes the first 32 bytes of an Ethernet segment (sizeof(struct mlx5_wqe_eth_seg))
                    mask[i] = !(ethStart >= 0 && i < ethStart + 32);
                }
            }
        }
        return mask;
    }

    private MemorySegment createQp(final Arena a)
    {
        final MemorySegment attr = a.allocate(IbvQpInitAttrEx.LAYOUT);
        attr.set(C_POINTER, IbvQpInitAttrEx.SEND_CQ_OFFSET, cq);
        attr.set(C_POINTER, IbvQpInitAttrEx.RECV_CQ_OFFSET, cq);
        attr.set(U32, IbvQpInitAttrEx.CAP_OFFSET + IbvQpCap.MAX_SEND_WR_OFFSET, maxSendWr);
        attr.set(U32, IbvQpInitAttrEx.CAP_OFFSET + IbvQpCap.MAX_RECV_WR_OFFSET, 4);
        attr.set(U32, IbvQpInitAttrEx.CAP_OFFSET + IbvQpCap.MAX_SEND_SGE_OFFSET, maxSendSge);
        attr.set(U32, IbvQpInitAttrEx.CAP_OFFSET + IbvQpCap.MAX_RECV_SGE_OFFSET, 1);
        attr.set(U32, IbvQpInitAttrEx.CAP_OFFSET + IbvQpCap.MAX_INLINE_DATA_OFFSET, maxInlineData);
        attr.set(C_INT, IbvQpInitAttrEx.QP_TYPE_OFFSET, switch (kind)
        {
            case RC -> IBV_QPT_RC;
            case UC -> IBV_QPT_UC;
            case UD -> IBV_QPT_UD;
            case RAW_PACKET -> IBV_QPT_RAW_PACKET;
        });
        attr.set(C_POINTER, IbvQpInitAttrEx.PD_OFFSET, pd);
        int mask = IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD;
        if (api == Api.WR)
        {
            mask |= IbvQpInitAttrEx.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
            attr.set(U64, IbvQpInitAttrEx.SEND_OPS_FLAGS_OFFSET, switch (kind)
            {
                case RC -> RC_OPS;
                case UC -> UC_OPS;
                case UD -> UD_OPS;
                // a raw packet QP takes SEND (and TSO) only: libmlx5 refuses the QP with EOPNOTSUPP for more
                case RAW_PACKET -> IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND;
            });
        }
        attr.set(U32, IbvQpInitAttrEx.COMP_MASK_OFFSET, mask);
        return check(InlineVerbs.ibv_create_qp_ex(state, context, attr), "ibv_create_qp_ex (" + kind + ", max_send_wr "
            + maxSendWr + ", max_send_sge " + maxSendSge + ", max_inline_data " + maxInlineData + ")");
    }

    /** INIT, RTR, RTS; RC and UC to themselves. */
    private void connect(final MemorySegment qp, final Arena a)
    {
        final MemorySegment attr = a.allocate(IbvQpAttr.LAYOUT);
        attr.set(C_INT, IbvQpAttr.QP_STATE_OFFSET, IbvQpAttr.IBV_QPS_INIT);
        attr.set(U8, IbvQpAttr.PORT_NUM_OFFSET, (byte)1);
        int mask = IbvQpAttr.IBV_QP_STATE | IbvQpAttr.IBV_QP_PORT;
        if (kind == QpKind.UD)
        {
            attr.set(U32, IbvQpAttr.QKEY_OFFSET, QKEY);
            mask |= IbvQpAttr.IBV_QP_QKEY | IbvQpAttr.IBV_QP_PKEY_INDEX;
        }
        else if (kind != QpKind.RAW_PACKET)
        {
            attr.set(C_INT, IbvQpAttr.QP_ACCESS_FLAGS_OFFSET, kind == QpKind.UC ? IbvMr.IBV_ACCESS_LOCAL_WRITE
                | IbvMr.IBV_ACCESS_REMOTE_WRITE : IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
                | IbvMr.IBV_ACCESS_REMOTE_READ | IbvMr.IBV_ACCESS_REMOTE_ATOMIC);
            mask |= IbvQpAttr.IBV_QP_ACCESS_FLAGS | IbvQpAttr.IBV_QP_PKEY_INDEX;
        }
        checkRc(Verbs.ibv_modify_qp(qp, attr, mask), "ibv_modify_qp INIT");
        attr.fill((byte)0);
        attr.set(C_INT, IbvQpAttr.QP_STATE_OFFSET, IbvQpAttr.IBV_QPS_RTR);
        mask = IbvQpAttr.IBV_QP_STATE;
        if (kind == QpKind.RC || kind == QpKind.UC)
        {
            attr.set(C_INT, IbvQpAttr.PATH_MTU_OFFSET, activeMtu);
            attr.set(U32, IbvQpAttr.DEST_QP_NUM_OFFSET, lastQpn);
            attr.set(U32, IbvQpAttr.RQ_PSN_OFFSET, 0x100);
            path(attr.asSlice(IbvQpAttr.AH_ATTR_OFFSET, IbvAhAttr.LAYOUT.byteSize()));
            mask |= IbvQpAttr.IBV_QP_AV | IbvQpAttr.IBV_QP_PATH_MTU | IbvQpAttr.IBV_QP_DEST_QPN
                | IbvQpAttr.IBV_QP_RQ_PSN;
            if (kind == QpKind.RC)
            {
                attr.set(U8, IbvQpAttr.MAX_DEST_RD_ATOMIC_OFFSET, (byte)1);
                attr.set(U8, IbvQpAttr.MIN_RNR_TIMER_OFFSET, (byte)12);
                mask |= IbvQpAttr.IBV_QP_MAX_DEST_RD_ATOMIC | IbvQpAttr.IBV_QP_MIN_RNR_TIMER;
            }
        }
        checkRc(Verbs.ibv_modify_qp(qp, attr, mask), "ibv_modify_qp RTR");
        attr.fill((byte)0);
        attr.set(C_INT, IbvQpAttr.QP_STATE_OFFSET, IbvQpAttr.IBV_QPS_RTS);
        mask = IbvQpAttr.IBV_QP_STATE;
        if (kind != QpKind.RAW_PACKET)
        {
            attr.set(U32, IbvQpAttr.SQ_PSN_OFFSET, 0x100);
            mask |= IbvQpAttr.IBV_QP_SQ_PSN;
        }
        if (kind == QpKind.RC)
        {
            // no retries: a WQE the device executes against the oracle's made-up addresses fails at once
            attr.set(U8, IbvQpAttr.TIMEOUT_OFFSET, (byte)14);
            attr.set(U8, IbvQpAttr.RETRY_CNT_OFFSET, (byte)0);
            attr.set(U8, IbvQpAttr.RNR_RETRY_OFFSET, (byte)0);
            attr.set(U8, IbvQpAttr.MAX_RD_ATOMIC_OFFSET, (byte)1);
            mask |= IbvQpAttr.IBV_QP_TIMEOUT | IbvQpAttr.IBV_QP_RETRY_CNT | IbvQpAttr.IBV_QP_RNR_RETRY
                | IbvQpAttr.IBV_QP_MAX_QP_RD_ATOMIC;
        }
        checkRc(Verbs.ibv_modify_qp(qp, attr, mask), "ibv_modify_qp RTS");
    }

    /** struct ibv_ah_attr to port 1 itself: LID routed on IB, GRH with GID index 1 on Ethernet. */
    private void path(final MemorySegment ahAttr)
    {
        ahAttr.set(U8, IbvAhAttr.PORT_NUM_OFFSET, (byte)1);
        if (ethernet)
        {
            ahAttr.set(U8, IbvAhAttr.IS_GLOBAL_OFFSET, (byte)1);
            MemorySegment.copy(gid, 0, ahAttr, IbvAhAttr.GRH_OFFSET + IbvGlobalRoute.DGID_OFFSET, 16);
            ahAttr.set(U8, IbvAhAttr.GRH_OFFSET + IbvGlobalRoute.SGID_INDEX_OFFSET, (byte)gidIndex);
            ahAttr.set(U8, IbvAhAttr.GRH_OFFSET + IbvGlobalRoute.HOP_LIMIT_OFFSET, (byte)64);
        }
        else
        {
            ahAttr.set(U16, IbvAhAttr.DLID_OFFSET, (short)lid);
        }
    }

    /** {@code wr} as a struct ibv_send_wr (next = NULL). */
    private MemorySegment build(final WorkRequest w, final Arena a)
    {
        final MemorySegment wr = a.allocate(IbvSendWr.LAYOUT);
        final MemorySegment sges = a.allocate(IbvSge.LAYOUT, Math.max(1, w.addr.length));
        for (int i = 0; i < w.addr.length; i++)
        {
            final long at = i * IbvSge.LAYOUT.byteSize();
            sges.set(U64, at + IbvSge.ADDR_OFFSET, w.addr[i]);
            sges.set(U32, at + IbvSge.LENGTH_OFFSET, w.length[i]);
            sges.set(U32, at + IbvSge.LKEY_OFFSET, w.lkey[i]);
        }
        wr.set(U64, IbvSendWr.WR_ID_OFFSET, w.wrId);
        wr.set(C_POINTER, IbvSendWr.SG_LIST_OFFSET, sges);
        wr.set(C_INT, IbvSendWr.NUM_SGE_OFFSET, w.addr.length);
        wr.set(C_INT, IbvSendWr.OPCODE_OFFSET, w.opcode());
        wr.set(C_INT, IbvSendWr.SEND_FLAGS_OFFSET, w.sendFlags());
        if (w.opcode() == WorkRequest.IBV_WR_SEND_WITH_INV)
        {
            wr.set(U32, IbvSendWr.INVALIDATE_RKEY_OFFSET, w.immData);
        }
        else
        {
            wr.set(BE32, IbvSendWr.IMM_DATA_OFFSET, w.immData);   // imm_data is __be32
        }
        if (w.atomicOp())
        {
            wr.set(U64, IbvSendWr.ATOMIC_REMOTE_ADDR_OFFSET, w.remoteAddr);
            wr.set(U32, IbvSendWr.ATOMIC_RKEY_OFFSET, w.rkey);
            wr.set(U64, IbvSendWr.ATOMIC_COMPARE_ADD_OFFSET, w.compareAdd);
            wr.set(U64, IbvSendWr.ATOMIC_SWAP_OFFSET, w.swap);
        }
        else if (kind == QpKind.UD)
        {
            wr.set(C_POINTER, IbvSendWr.UD_AH_OFFSET, ah);
            wr.set(U32, IbvSendWr.UD_REMOTE_QPN_OFFSET, w.remoteQpn);
            wr.set(U32, IbvSendWr.UD_REMOTE_QKEY_OFFSET, w.remoteQkey);
        }
        else
        {
            wr.set(U64, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET, w.remoteAddr);
            wr.set(U32, IbvSendWr.RDMA_RKEY_OFFSET, w.rkey);
        }
        return wr;
    }

    /** ibv_wr_start; per work request the opcode builder, the UD address, the data setter; ibv_wr_complete. */
    private void postWr(final MemorySegment qp, final WorkRequest[] wrs, final Arena a)
    {
        final MemorySegment qpx = check(Verbs.ibv_qp_to_qp_ex(state, qp), "ibv_qp_to_qp_ex");
        InlineVerbs.ibv_wr_start(qpx);
        for (final WorkRequest w : wrs)
        {
            postWr(qpx, w, a);
        }
        final int rc = InlineVerbs.ibv_wr_complete(qpx);
        if (rc != 0)
        {
            throw new IllegalArgumentException("libmlx5 refused " + List.of(wrs) + ": ibv_wr_complete returned " + rc);
        }
    }

    private void postWr(final MemorySegment qpx, final WorkRequest w, final Arena a)
    {
        InlineVerbs.wrId(qpx, w.wrId);
        InlineVerbs.wrFlags(qpx, w.sendFlags() & ~WorkRequest.IBV_SEND_INLINE);
        final int imm = Integer.reverseBytes(w.immData);
        switch (w.opcode())
        {
            case WorkRequest.IBV_WR_SEND -> InlineVerbs.ibv_wr_send(qpx);
            case WorkRequest.IBV_WR_SEND_WITH_IMM -> InlineVerbs.ibv_wr_send_imm(qpx, imm);
            case WorkRequest.IBV_WR_SEND_WITH_INV -> InlineVerbs.ibv_wr_send_inv(qpx, w.immData);
            case WorkRequest.IBV_WR_RDMA_WRITE -> InlineVerbs.ibv_wr_rdma_write(qpx, w.rkey, w.remoteAddr);
            case WorkRequest.IBV_WR_RDMA_WRITE_WITH_IMM ->
                InlineVerbs.ibv_wr_rdma_write_imm(qpx, w.rkey, w.remoteAddr, imm);
            case WorkRequest.IBV_WR_RDMA_READ -> InlineVerbs.ibv_wr_rdma_read(qpx, w.rkey, w.remoteAddr);
            case WorkRequest.IBV_WR_ATOMIC_CMP_AND_SWP ->
                InlineVerbs.ibv_wr_atomic_cmp_swp(qpx, w.rkey, w.remoteAddr, w.compareAdd, w.swap);
            case WorkRequest.IBV_WR_ATOMIC_FETCH_AND_ADD ->
                InlineVerbs.ibv_wr_atomic_fetch_add(qpx, w.rkey, w.remoteAddr, w.compareAdd);
            default -> throw new IllegalArgumentException("opcode " + w.opcode());
        }
        if (kind == QpKind.UD)
        {
            InlineVerbs.ibv_wr_set_ud_addr(qpx, ah, w.remoteQpn, w.remoteQkey);
        }
        if (w.inline())
        {
            final MemorySegment bufs = a.allocate(IbvDataBuf.LAYOUT, Math.max(1, w.addr.length));
            for (int i = 0; i < w.addr.length; i++)
            {
                final long at = i * IbvDataBuf.LAYOUT.byteSize();
                bufs.set(C_POINTER, at + IbvDataBuf.ADDR_OFFSET, MemorySegment.ofAddress(w.addr[i]));
                bufs.set(U64, at + IbvDataBuf.LENGTH_OFFSET, w.length[i]);
            }
            InlineVerbs.ibv_wr_set_inline_data_list(qpx, w.addr.length, bufs);
        }
        else
        {
            final MemorySegment sges = a.allocate(IbvSge.LAYOUT, Math.max(1, w.addr.length));
            for (int i = 0; i < w.addr.length; i++)
            {
                final long at = i * IbvSge.LAYOUT.byteSize();
                sges.set(U64, at + IbvSge.ADDR_OFFSET, w.addr[i]);
                sges.set(U32, at + IbvSge.LENGTH_OFFSET, w.length[i]);
                sges.set(U32, at + IbvSge.LKEY_OFFSET, w.lkey[i]);
            }
            InlineVerbs.ibv_wr_set_sge_list(qpx, w.addr.length, sges);
        }
    }

    private MemorySegment check(final MemorySegment p, final String what)
    {
        if (p.address() == 0)
        {
            throw new IllegalStateException(what + " failed: errno " + CallState.errno(state));
        }
        return p;
    }

    private static void checkRc(final int rc, final String what)
    {
        if (rc != 0)
        {
            throw new IllegalStateException(what + " failed: " + rc);
        }
    }

    /** MLX5EMU_ENGINE=off (or 0): the emulated device executes nothing, the oracle retires its fillers itself. */
    private static boolean isIdle()
    {
        final String e = System.getenv("MLX5EMU_ENGINE");
        return "off".equals(e) || "0".equals(e);
    }

    @Override
    public void close()
    {
        if (ah.address() != 0)
        {
            Verbs.ibv_destroy_ah(ah);
        }
        Verbs.ibv_destroy_cq(cq);
        Verbs.ibv_dereg_mr(mr);
        Verbs.ibv_dealloc_pd(pd);
        Verbs.ibv_close_device(context);
        arena.close();
    }
}
