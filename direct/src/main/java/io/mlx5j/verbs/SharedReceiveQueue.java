// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvSrq;
import io.mlx5j.bindings.IbvSrqAttr;
import io.mlx5j.bindings.IbvSrqInitAttr;
import io.mlx5j.bindings.IbvSrqInitAttrEx;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Mlx5dvSrq;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.verbs.internal.Rings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;

/**
 * A shared receive queue ({@code struct ibv_srq}): receive WQEs that several QPs of the PD consume.
 * <p>
 * An XRC SRQ ({@link ProtectionDomain#createXrcSrq}, IBV_SRQT_XRC) belongs to an {@link XrcDomain} as well: the XRC
 * TGT QPs of the domain receive into it the messages whose XRC segment names its {@link #srqNum()}, and complete
 * them on the SRQ's own CQ ({@link #cq()}) with the TGT QP's number. Its receive WQEs are those of a plain SRQ.
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class SharedReceiveQueue extends NativeResource
{
    /**
     * MLX5_RSC_TYPE_XSRQ of rdma-core v44 providers/mlx5/mlx5.h (enum mlx5_rsc_type: QP, XSRQ, SRQ, RWQ), which
     * mlx5_create_xrc_srq (verbs.c) stores in the mlx5_resource that heads its struct mlx5_srq.
     */
    private static final int MLX5_RSC_TYPE_XSRQ = 1;

    private final int maxWr;
    private final int maxSge;
    /** The XRC domain of an XRC SRQ, else null. */
    private final XrcDomain xrcd;
    /** The CQ of an XRC SRQ, else null. */
    private final CompletionQueue cq;
    /** ibv_get_srq_num of an XRC SRQ, else -1. */
    private final int srqNum;
    /** What an XRC SRQ's CQEs carry in srqn_uidx (user index under CQE version 1, else the SRQ number), else -1. */
    private final int cqeIndex;
    private SrqRing ring;

    private SharedReceiveQueue(final ProtectionDomain pd, final Arena arena, final MemorySegment handle,
        final int maxWr, final int maxSge)
    {
        super(pd.owner, arena, handle, List.of(pd));
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.xrcd = null;
        this.cq = null;
        this.srqNum = -1;
        this.cqeIndex = -1;
    }

    private SharedReceiveQueue(final ProtectionDomain pd, final XrcDomain xrcd, final CompletionQueue cq,
        final Arena arena, final MemorySegment handle, final int maxWr, final int maxSge, final int srqNum,
        final int cqeIndex)
    {
        super(pd.owner, arena, handle, List.of(pd, xrcd, cq));
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.xrcd = xrcd;
        this.cq = cq;
        this.srqNum = srqNum;
        this.cqeIndex = cqeIndex;
    }

    static SharedReceiveQueue createXrc(final ProtectionDomain pd, final XrcDomain xrcd, final CompletionQueue cq,
        final int maxWr, final int maxSge)
    {
        if (xrcd == null)
        {
            throw new IllegalArgumentException("an XRC SRQ needs its XRC domain (Context.openXrcDomain), got null");
        }
        if (cq == null)
        {
            throw new IllegalArgumentException("an XRC SRQ needs the CQ its receives complete on, got null");
        }
        if (maxWr < 1 || maxSge < 1)
        {
            throw new IllegalArgumentException("SRQ needs maxWr >= 1 and maxSge >= 1, got " + maxWr + ", " + maxSge);
        }
        xrcd.ensureOpen();
        cq.ensureOpen();
        if (xrcd.owner != pd.owner || cq.owner != pd.owner)
        {
            throw new IllegalArgumentException((xrcd.owner != pd.owner ? xrcd : cq) +
                " belongs to another context than the PD");
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvSrqInitAttrEx.LAYOUT);
            final long a = IbvSrqInitAttrEx.ATTR_OFFSET;
            attr.set(U32, a + IbvSrqAttr.MAX_WR_OFFSET, maxWr);
            attr.set(U32, a + IbvSrqAttr.MAX_SGE_OFFSET, maxSge);
            attr.set(U32, IbvSrqInitAttrEx.COMP_MASK_OFFSET, IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE |
                IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_XRCD |
                IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_CQ);
            attr.set(C_INT, IbvSrqInitAttrEx.SRQ_TYPE_OFFSET, IbvSrqInitAttrEx.IBV_SRQT_XRC);
            attr.set(C_POINTER, IbvSrqInitAttrEx.PD_OFFSET, pd.handle);
            attr.set(C_POINTER, IbvSrqInitAttrEx.XRCD_OFFSET, xrcd.handle);
            attr.set(C_POINTER, IbvSrqInitAttrEx.CQ_OFFSET, cq.handle);
            final MemorySegment raw = InlineVerbs.ibv_create_srq_ex(state, pd.owner.handle, attr);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_create_srq_ex", CallState.errno(state),
                    "XRC SRQ in " + xrcd + ", max_wr " + maxWr + ", max_sge " + maxSge);
            }
            final MemorySegment num = arena.allocate(U32);
            final int rc = InlineVerbs.ibv_get_srq_num(raw, num);
            if (rc != 0)
            {
                Verbs.ibv_destroy_srq(raw);
                throw new VerbsException("ibv_get_srq_num", rc, "XRC SRQ in " + xrcd);
            }
            final int cqeIndex = xsrqIndex(raw, num.get(U32, 0));
            return new SharedReceiveQueue(pd, xrcd, cq, arena, raw.reinterpret(IbvSrq.LAYOUT.byteSize(), arena, null),
                attr.get(U32, a + IbvSrqAttr.MAX_WR_OFFSET), attr.get(U32, a + IbvSrqAttr.MAX_SGE_OFFSET),
                num.get(U32, 0), cqeIndex);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * The number an XRC SRQ's CQEs carry in srqn_uidx. A CQE of a TGT QP's receive names the TGT QP, so the SRQ is
     * found by this field: the user index libmlx5 gave the SRQ under CQE version 1, else the SRQ number
     * (mlx5_create_xrc_srq stores exactly this as {@code rsc.rsn}, and mlx5_parse_cqe finds the SRQ by it). libmlx5
     * reports the user index through no public call, so it is read from {@code struct mlx5_srq}, whose first member
     * {@code struct mlx5_resource {type; rsn}} (8 bytes) directly precedes the {@code struct ibv_srq} the library
     * hands out (to_msrq is a container_of). The type is checked, so a library of another layout fails here, clearly,
     * instead of mis-routing completions.
     */
    private static int xsrqIndex(final MemorySegment srq, final int srqNum)
    {
        final MemorySegment rsc = MemorySegment.ofAddress(srq.address() - 8).reinterpret(8);
        final int type = rsc.get(U32, 0);
        final int rsn = rsc.get(U32, 4);
        if (type != MLX5_RSC_TYPE_XSRQ || (rsn & ~0xffffff) != 0)
        {
            Verbs.ibv_destroy_srq(srq);
            throw new IllegalStateException("libmlx5's struct mlx5_srq is not laid out as rdma-core v44's (resource " +
                "type " + type + ", expected MLX5_RSC_TYPE_XSRQ " + MLX5_RSC_TYPE_XSRQ + "; srq_num 0x" +
                Integer.toHexString(srqNum) + "): XRC SRQ completions could not be routed");
        }
        return rsn;
    }

    /** {@return true for an XRC SRQ (IBV_SRQT_XRC)} */
    public boolean isXrc()
    {
        return xrcd != null;
    }

    /** {@return the XRC domain of an XRC SRQ, or null} */
    public XrcDomain xrcd()
    {
        return xrcd;
    }

    /** {@return the CQ an XRC SRQ's receives complete on, or null for a plain SRQ (its QPs' receive CQs)} */
    public CompletionQueue cq()
    {
        return cq;
    }

    /**
     * {@return the XRC SRQ number ({@code ibv_get_srq_num}) that an XRC INI QP's WQEs name
     * ({@code SendQueue.xrcSrqn})}
     *
     * @throws IllegalStateException if this is no XRC SRQ
     */
    public int srqNum()
    {
        ensureOpen();
        if (xrcd == null)
        {
            throw new IllegalStateException(this + " is no XRC SRQ: only those have an SRQ number for peers");
        }
        return srqNum;
    }

    /**
     * {@return what the CQEs of this XRC SRQ's receives carry in srqn_uidx (the user index under CQE version 1, the
     * SRQ number otherwise), by which a poller finds the SRQ; -1 for a plain SRQ}
     */
    public int cqeIndex()
    {
        ensureOpen();
        return cqeIndex;
    }

    static SharedReceiveQueue create(final ProtectionDomain pd, final int maxWr, final int maxSge, final int limit)
    {
        if (maxWr < 1 || maxSge < 1)
        {
            throw new IllegalArgumentException("SRQ needs maxWr >= 1 and maxSge >= 1, got " + maxWr + ", " + maxSge);
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvSrqInitAttr.LAYOUT);
            final long a = IbvSrqInitAttr.ATTR_OFFSET;
            attr.set(U32, a + IbvSrqAttr.MAX_WR_OFFSET, maxWr);
            attr.set(U32, a + IbvSrqAttr.MAX_SGE_OFFSET, maxSge);
            attr.set(U32, a + IbvSrqAttr.SRQ_LIMIT_OFFSET, limit);
            final MemorySegment raw = Verbs.ibv_create_srq(state, pd.handle, attr);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_create_srq", CallState.errno(state),
                    "max_wr " + maxWr + ", max_sge " + maxSge);
            }
            return new SharedReceiveQueue(pd, arena, raw.reinterpret(IbvSrq.LAYOUT.byteSize(), arena, null),
                attr.get(U32, a + IbvSrqAttr.MAX_WR_OFFSET), attr.get(U32, a + IbvSrqAttr.MAX_SGE_OFFSET));
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * Granted WQE count (written back by ibv_create_srq).
     *
     * @return the WQE count
     */
    public int maxWr()
    {
        ensureOpen();
        return maxWr;
    }

    /**
     * Granted SGEs per WQE.
     *
     * @return the SGE count
     */
    public int maxSge()
    {
        ensureOpen();
        return maxSge;
    }

    /**
     * Arms the limit event ({@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}): when fewer than {@code limit} receive
     * WQEs are left posted, the context's {@link AsyncEvents} get {@link AsyncEvent.Type#SRQ_LIMIT_REACHED} for this
     * SRQ, once; the SRQ is then disarmed ({@link #limit()} is 0) until armed again. 0 disarms.
     *
     * @param limit the watermark, 0 to disarm
     * @throws VerbsException with EINVAL if {@code limit} is not below the SRQ's size
     */
    public void armLimit(final int limit)
    {
        if (limit < 0)
        {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
        synchronized (lock())
        {
            ensureOpen();
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment attr = tmp.allocate(IbvSrqAttr.LAYOUT);
                attr.set(U32, IbvSrqAttr.SRQ_LIMIT_OFFSET, limit);
                final int rc = Verbs.ibv_modify_srq(handle, attr, IbvSrqAttr.IBV_SRQ_LIMIT);
                if (rc != 0)
                {
                    throw new VerbsException("ibv_modify_srq", rc, this + ", limit " + limit);
                }
            }
        }
    }

    /** {@return the armed limit ({@code ibv_query_srq}): 0 when not armed, as after its event fired} */
    public int limit()
    {
        synchronized (lock())
        {
            ensureOpen();
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment attr = tmp.allocate(IbvSrqAttr.LAYOUT);
                final int rc = Verbs.ibv_query_srq(handle, attr);
                if (rc != 0)
                {
                    throw new VerbsException("ibv_query_srq", rc, toString());
                }
                return attr.get(U32, IbvSrqAttr.SRQ_LIMIT_OFFSET);
            }
        }
    }

    /**
     * {@return the raw WQE ring ({@code mlx5dv_init_obj} with MLX5DV_OBJ_SRQ, asking for the SRQ number), computed
     * once}
     */
    public SrqRing ring()
    {
        synchronized (lock())
        {
            ensureOpen();
            if (ring == null)
            {
                ring = initObj();
            }
            return ring;
        }
    }

    private SrqRing initObj()
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment obj = tmp.allocate(Mlx5dvObj.LAYOUT);
            final MemorySegment out = tmp.allocate(Mlx5dvSrq.LAYOUT);
            out.set(U64, Mlx5dvSrq.COMP_MASK_OFFSET, Mlx5dvSrq.MLX5DV_SRQ_MASK_SRQN);
            obj.set(C_POINTER, Mlx5dvObj.SRQ_IN_OFFSET, handle);
            obj.set(C_POINTER, Mlx5dvObj.SRQ_OUT_OFFSET, out);
            final int rc = Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_SRQ);
            if (rc != 0)
            {
                throw new VerbsException("mlx5dv_init_obj", rc, this + " (is it an mlx5 device?)");
            }
            if ((out.get(U64, Mlx5dvSrq.COMP_MASK_OFFSET) & Mlx5dvSrq.MLX5DV_SRQ_MASK_SRQN) == 0)
            {
                throw new IllegalStateException("libmlx5 did not report the SRQ number");
            }
            final int stride = out.get(U32, Mlx5dvSrq.STRIDE_OFFSET);
            final int tail = out.get(U32, Mlx5dvSrq.TAIL_OFFSET);
            return new SrqRing(out.get(U32, Mlx5dvSrq.SRQN_OFFSET),
                Rings.view(out.get(C_POINTER, Mlx5dvSrq.BUF_OFFSET), (tail + 1L) * stride, arena, "srq.buf"),
                stride, out.get(U32, Mlx5dvSrq.HEAD_OFFSET), tail,
                Rings.view(out.get(C_POINTER, Mlx5dvSrq.DBREC_OFFSET), Rings.DBREC_BYTES, arena, "srq.dbrec"));
        }
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return Verbs.ibv_destroy_srq(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_destroy_srq";
    }

    @Override
    public String toString()
    {
        return (xrcd != null ? "XRC " : "") + "SharedReceiveQueue(max_wr " + maxWr +
            (xrcd != null ? ", srq_num 0x" + Integer.toHexString(srqNum) : "") + (isClosed() ? ", closed)" : ")");
    }
}
