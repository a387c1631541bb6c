// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvWq;
import io.mlx5j.bindings.IbvWqAttr;
import io.mlx5j.bindings.IbvWqInitAttr;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Mlx5dvRwq;
import io.mlx5j.bindings.Mlx5dvStridingRqInitAttr;
import io.mlx5j.bindings.Mlx5dvWqInitAttr;
import io.mlx5j.verbs.internal.Rings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * A receive work queue ({@code struct ibv_wq} of type IBV_WQT_RQ): a receive ring of its own, completing into one
 * CQ, which an {@link IndirectionTable} behind an RSS QP ({@link ProtectionDomain#createRssQp}) feeds with the frames
 * that hash to it. Created through {@code mlx5dv_create_wq}: plain (data segments, as libmlx5's mlx5_post_wq_recv
 * writes them; use {@link io.mlx5j.direct.RecvQueue#of(WorkQueue)}) or striding (a multi-packet RQ: each WQE is one
 * buffer of 2^logNumStrides strides of 2^logStrideBytes bytes into which the NIC packs frames; use {@link
 * io.mlx5j.raw.StridingRecvQueue}). A WQ is created in RESET; {@link #ready()} moves it to RDY (ibv_modify_wq), after
 * which it receives.
 * <p>
 * The CQ of a WQ completes that WQ only: its CQEs name the WQ by libmlx5's user index, which mlx5dv does not report,
 * and carry the flow tag where a QP's CQEs carry the QP number, so {@link io.mlx5j.direct.CqPoller} serves one WQ per
 * CQ.
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class WorkQueue extends NativeResource
{
    private final CompletionQueue cq;
    private final int wqn;
    private final int maxWr;
    private final int maxSge;
    private final int logStrideBytes;
    private final int logNumStrides;
    private final boolean twoByteShift;
    private final boolean cvlanStripping;
    private WqRing rings;

    private WorkQueue(final ProtectionDomain pd, final Arena arena, final MemorySegment handle, final Builder b,
        final int maxWr, final int maxSge)
    {
        super(pd.owner, arena, handle, List.of(pd, b.cq));
        this.cq = b.cq;
        this.wqn = handle.get(U32, IbvWq.WQ_NUM_OFFSET);
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.logStrideBytes = b.logStrideBytes;
        this.logNumStrides = b.logNumStrides;
        this.twoByteShift = b.twoByteShift;
        this.cvlanStripping = b.cvlanStripping;
    }

    /**
     * A WQ completing into {@code cq}: by default 64 WQEs of one data segment, not striding, no VLAN stripping.
     *
     * @param cq the CQ the WQ completes into
     * @return the builder
     */
    public static Builder builder(final CompletionQueue cq)
    {
        return new Builder(cq);
    }

    /** What {@link ProtectionDomain#createWq} creates. */
    public static final class Builder
    {
        private final CompletionQueue cq;
        private int maxWr = 64;
        private int maxSge = 1;
        private int logStrideBytes = -1;
        private int logNumStrides;
        private boolean twoByteShift;
        private boolean cvlanStripping;

        private Builder(final CompletionQueue cq)
        {
            this.cq = cq;
        }

        /**
         * At least this many WQEs (libmlx5 rounds up to a power of two).
         *
         * @param n the count
         * @return this builder
         */
        public Builder maxWr(final int n)
        {
            this.maxWr = n;
            return this;
        }

        /**
         * Data segments per WQE of a plain WQ.
         *
         * @param n the count
         * @return this builder
         */
        public Builder maxSge(final int n)
        {
            this.maxSge = n;
            return this;
        }

        /**
         * A striding RQ (MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ): 2^logNumStrides strides of 2^logStrideBytes bytes per
         * WQE; with {@code twoByteShift} the NIC starts each frame 2 bytes into its first stride (so that the IP header
         * after a 14-byte Ethernet header is 4-byte aligned). The limits are the device's (mlx5dv_query_device
         * striding_rq_caps); libmlx5 refuses others with EINVAL.
         *
         * @param logStrideBytes log2 of the bytes per stride
         * @param logNumStrides log2 of the strides per WQE
         * @param twoByteShift whether frames start 2 bytes into their stride
         * @return this builder
         */
        public Builder striding(final int logStrideBytes, final int logNumStrides, final boolean twoByteShift)
        {
            this.logStrideBytes = logStrideBytes;
            this.logNumStrides = logNumStrides;
            this.twoByteShift = twoByteShift;
            return this;
        }

        /**
         * IBV_WQ_FLAGS_CVLAN_STRIPPING: the NIC removes the 802.1Q tag and reports its TCI in the CQE.
         *
         * @param on whether to strip the tag
         * @return this builder
         */
        public Builder cvlanStripping(final boolean on)
        {
            this.cvlanStripping = on;
            return this;
        }
    }

    static WorkQueue create(final ProtectionDomain pd, final Builder b)
    {
        if (b.cq.owner != pd.owner)
        {
            throw new IllegalArgumentException(b.cq + " belongs to another context than the PD");
        }
        b.cq.ensureOpen();
        if (b.maxWr < 1 || b.maxSge < 1)
        {
            throw new IllegalArgumentException(
                "a WQ needs maxWr >= 1 and maxSge >= 1, got " + b.maxWr + ", " + b.maxSge);
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvWqInitAttr.LAYOUT);
            attr.set(C_INT, IbvWqInitAttr.WQ_TYPE_OFFSET, IbvWq.IBV_WQT_RQ);
            attr.set(U32, IbvWqInitAttr.MAX_WR_OFFSET, b.maxWr);
            attr.set(U32, IbvWqInitAttr.MAX_SGE_OFFSET, b.maxSge);
            attr.set(C_POINTER, IbvWqInitAttr.PD_OFFSET, pd.handle);
            attr.set(C_POINTER, IbvWqInitAttr.CQ_OFFSET, b.cq.handle);
            if (b.cvlanStripping)
            {
                attr.set(U32, IbvWqInitAttr.COMP_MASK_OFFSET, IbvWqInitAttr.IBV_WQ_INIT_ATTR_FLAGS);
                attr.set(U32, IbvWqInitAttr.CREATE_FLAGS_OFFSET, IbvWqInitAttr.IBV_WQ_FLAGS_CVLAN_STRIPPING);
            }
            MemorySegment dv = MemorySegment.NULL;
            if (b.logStrideBytes >= 0)
            {
                dv = arena.allocate(Mlx5dvWqInitAttr.LAYOUT);
                dv.set(U64, Mlx5dvWqInitAttr.COMP_MASK_OFFSET, Mlx5dvWqInitAttr.MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ);
                final long s = Mlx5dvWqInitAttr.STRIDING_RQ_ATTRS_OFFSET;
                dv.set(U32, s + Mlx5dvStridingRqInitAttr.SINGLE_STRIDE_LOG_NUM_OF_BYTES_OFFSET, b.logStrideBytes);
                dv.set(U32, s + Mlx5dvStridingRqInitAttr.SINGLE_WQE_LOG_NUM_OF_STRIDES_OFFSET, b.logNumStrides);
                dv.set(U8, s + Mlx5dvStridingRqInitAttr.TWO_BYTE_SHIFT_EN_OFFSET, (byte) (b.twoByteShift ? 1 : 0));
            }
            final MemorySegment raw = Mlx5dv.mlx5dv_create_wq(state, pd.owner.handle, attr, dv);
            if (raw.address() == 0)
            {
                throw new VerbsException("mlx5dv_create_wq", CallState.errno(state), "max_wr " + b.maxWr + ", max_sge "
                    + b.maxSge + (b.logStrideBytes >= 0 ? ", striding 2^" + b.logNumStrides + " x 2^" +
                    b.logStrideBytes + " bytes" : ""));
            }
            return new WorkQueue(pd, arena, raw.reinterpret(IbvWq.LAYOUT.byteSize(), arena, null), b, b.maxWr,
                b.maxSge);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * RESET to RDY ({@code ibv_modify_wq}): the WQ takes frames from now on.
     *
     * @return this WQ
     */
    public WorkQueue ready()
    {
        modify(IbvWq.IBV_WQS_RDY, "RDY");
        return this;
    }

    /** To RESET: the WQ stops receiving; its posted WQEs are discarded. */
    public void reset()
    {
        modify(IbvWq.IBV_WQS_RESET, "RESET");
    }

    private void modify(final int state, final String what)
    {
        synchronized (lock())
        {
            ensureOpen();
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment attr = tmp.allocate(IbvWqAttr.LAYOUT);
                attr.set(U32, IbvWqAttr.ATTR_MASK_OFFSET, IbvWqAttr.IBV_WQ_ATTR_STATE);
                attr.set(C_INT, IbvWqAttr.WQ_STATE_OFFSET, state);
                final int rc = InlineVerbs.ibv_modify_wq(handle, attr);
                if (rc != 0)
                {
                    throw new VerbsException("ibv_modify_wq", Math.abs(rc), this + " to " + what);
                }
            }
        }
    }

    /** {@return the WQ number} */
    public int wqn()
    {
        ensureOpen();
        return wqn;
    }

    /** {@return the CQ the WQ completes into} */
    public CompletionQueue cq()
    {
        return cq;
    }

    /**
     * WQEs requested.
     *
     * @return the WQE count
     */
    public int maxWr()
    {
        return maxWr;
    }

    /** {@return the data segments per WQE} */
    public int maxSge()
    {
        return maxSge;
    }

    /** {@return whether this is a striding RQ} */
    public boolean isStriding()
    {
        return logStrideBytes >= 0;
    }

    /**
     * log2 of the bytes per stride (striding WQs).
     *
     * @return the log2, or -1 when not striding
     */
    public int logStrideBytes()
    {
        return logStrideBytes;
    }

    /**
     * log2 of the strides per WQE (striding WQs).
     *
     * @return the log2
     */
    public int logNumStrides()
    {
        return logNumStrides;
    }

    /** {@return whether frames start 2 bytes into their first stride} */
    public boolean twoByteShift()
    {
        return twoByteShift;
    }

    /** {@return whether the NIC strips 802.1Q tags} */
    public boolean cvlanStripping()
    {
        return cvlanStripping;
    }

    /**
     * {@return the raw ring ({@code mlx5dv_init_obj} with MLX5DV_OBJ_RWQ), computed once; its segments die with the WQ}
     */
    public WqRing rings()
    {
        synchronized (lock())
        {
            ensureOpen();
            if (rings == null)
            {
                try (Arena tmp = Arena.ofConfined())
                {
                    final MemorySegment obj = tmp.allocate(Mlx5dvObj.LAYOUT);
                    final MemorySegment out = tmp.allocate(Mlx5dvRwq.LAYOUT);
                    obj.set(C_POINTER, Mlx5dvObj.RWQ_IN_OFFSET, handle);
                    obj.set(C_POINTER, Mlx5dvObj.RWQ_OUT_OFFSET, out);
                    final int rc = Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_RWQ);
                    if (rc != 0)
                    {
                        throw new VerbsException("mlx5dv_init_obj", rc, this + " (is it an mlx5 device?)");
                    }
                    final int cnt = out.get(U32, Mlx5dvRwq.WQE_CNT_OFFSET);
                    final int stride = out.get(U32, Mlx5dvRwq.STRIDE_OFFSET);
                    rings = new WqRing(wqn,
                        Rings.view(out.get(C_POINTER, Mlx5dvRwq.BUF_OFFSET), (long) cnt * stride, arena, "rwq.buf"),
                        cnt, stride,
                        // recv_db is word MLX5_RCV_DBR of a whole doorbell record (verbs.c create_wq zeroes both
                        // words of rwq->db), so the record's 8 bytes are the WQ's
                        Rings.view(out.get(C_POINTER, Mlx5dvRwq.DBREC_OFFSET), Rings.DBREC_BYTES, arena, "rwq.dbrec"));
                }
            }
            return rings;
        }
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return InlineVerbs.ibv_destroy_wq(address.reinterpret(IbvWq.LAYOUT.byteSize()));
    }

    @Override
    String destroyCall()
    {
        return "ibv_destroy_wq";
    }

    @Override
    public String toString()
    {
        return (isStriding() ? "striding " : "") + "WorkQueue(wqn 0x" + Integer.toHexString(wqn) +
            (isClosed() ? ", closed)" : ")");
    }
}
