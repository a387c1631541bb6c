// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvSrq;
import io.mlx5j.bindings.IbvSrqAttr;
import io.mlx5j.bindings.IbvSrqInitAttr;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Mlx5dvSrq;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.verbs.internal.Rings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;

/**
 * A shared receive queue ({@code struct ibv_srq}): receive WQEs that several QPs of the PD consume.
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class SharedReceiveQueue extends NativeResource
{
    private final int maxWr;
    private final int maxSge;
    private SrqRing ring;

    private SharedReceiveQueue(final ProtectionDomain pd, final Arena arena, final MemorySegment handle,
        final int maxWr, final int maxSge)
    {
        super(pd.owner, arena, handle, List.of(pd));
        this.maxWr = maxWr;
        this.maxSge = maxSge;
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
        return "SharedReceiveQueue(max_wr " + maxWr + (isClosed() ? ", closed)" : ")");
    }
}
