// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvCq;
import io.mlx5j.bindings.IbvCqInitAttrEx;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvCq;
import io.mlx5j.bindings.Mlx5dvCqInitAttr;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.verbs.internal.Rings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * A completion queue ({@code struct ibv_cq}). {@link #ring()} hands the raw CQE ring to the Java poller; the CQ can
 * also still be polled through libmlx5 ({@link #pointer()} with {@link InlineVerbs#ibv_poll_cq}), which the parity
 * tests do.
 *
 * <p>Thread model: as every control-path object (see the package comment), its creation and close are serialised on the
 * Context.
 */
public final class CompletionQueue extends NativeResource
{
    private final int cqeSize;
    private final int depth;
    private final CompletionChannel channel;
    private final int cqeCompression;
    private final AtomicInteger unackedEvents = new AtomicInteger();
    private volatile int eventsReceived;
    private CqRing ring;

    private CompletionQueue(final Context context, final Arena arena, final MemorySegment handle, final int cqeSize,
        final CompletionChannel channel)
    {
        this(context, arena, handle, cqeSize, channel, 0);
    }

    private CompletionQueue(final Context context, final Arena arena, final MemorySegment handle, final int cqeSize,
        final CompletionChannel channel, final int cqeCompression)
    {
        super(context, arena, handle, dependencies(context, channel));
        this.cqeSize = cqeSize;
        this.channel = channel;
        this.cqeCompression = cqeCompression;
        this.depth = handle.get(C_INT, IbvCq.CQE_OFFSET);
    }

    private static List<NativeResource> dependencies(final Context context, final CompletionChannel channel)
    {
        // the Context is not a dependency: it tracks every object itself and closes them before the device
        return channel == null ? List.of() : List.of(channel);
    }

    static CompletionQueue create(final Context context, final int depth, final int cqeSize,
        final CompletionChannel channel, final int compVector)
    {
        if (depth < 1)
        {
            throw new IllegalArgumentException("CQ depth must be >= 1, got " + depth);
        }
        if (cqeSize != 64 && cqeSize != 128)
        {
            throw new IllegalArgumentException("CQE size must be 64 or 128, got " + cqeSize);
        }
        if (channel != null)
        {
            channel.ensureOpen();
            if (channel.owner != context)
            {
                throw new IllegalArgumentException(channel + " belongs to another context");
            }
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment channelPtr = channel == null ? MemorySegment.NULL : channel.handle;
            final MemorySegment raw;
            final String call;
            if (cqeSize == 64)
            {
                call = "ibv_create_cq";
                raw = Verbs.ibv_create_cq(state, context.handle, depth, MemorySegment.NULL, channelPtr, compVector);
            }
            else
            {
                // 128-byte CQEs exist only through the mlx5 extension; ibv_cq_ex starts with an ibv_cq (same address)
                call = "mlx5dv_create_cq";
                final MemorySegment attr = arena.allocate(IbvCqInitAttrEx.LAYOUT);
                attr.set(U32, IbvCqInitAttrEx.CQE_OFFSET, depth);
                attr.set(C_POINTER, IbvCqInitAttrEx.CHANNEL_OFFSET, channelPtr);
                attr.set(U32, IbvCqInitAttrEx.COMP_VECTOR_OFFSET, compVector);
                attr.set(U64, IbvCqInitAttrEx.WC_FLAGS_OFFSET, IbvCqInitAttrEx.IBV_WC_STANDARD_FLAGS);
                final MemorySegment dvAttr = arena.allocate(Mlx5dvCqInitAttr.LAYOUT);
                dvAttr.set(U64, Mlx5dvCqInitAttr.COMP_MASK_OFFSET, Mlx5dvCqInitAttr.MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE);
                dvAttr.set(U16, Mlx5dvCqInitAttr.CQE_SIZE_OFFSET, (short) 128);
                raw = Mlx5dv.mlx5dv_create_cq(state, context.handle, attr, dvAttr);
            }
            if (raw.address() == 0)
            {
                throw new VerbsException(call, CallState.errno(state),
                    "depth " + depth + ", " + cqeSize + "-byte CQEs");
            }
            return new CompletionQueue(context, arena, raw.reinterpret(IbvCq.LAYOUT.byteSize(), arena, null), cqeSize,
                channel);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * A CQ of 64-byte CQEs whose receive CQEs the device may compress ({@code mlx5dv_create_cq} with
     * MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE and {@code format}); only {@link io.mlx5j.direct.CqPoller} decodes it,
     * libmlx5's {@code ibv_poll_cq} cannot.
     */
    static CompletionQueue createCompressed(final Context context, final int depth, final int format)
    {
        if (depth < 1)
        {
            throw new IllegalArgumentException("CQ depth must be >= 1, got " + depth);
        }
        if (format != Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_HASH &&
            format != Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM &&
            format != Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX)
        {
            throw new IllegalArgumentException("CQE compression format must be one MLX5DV_CQE_RES_FORMAT_* value "
                + "(HASH 1, CSUM 2, CSUM_STRIDX 4), got " + format);
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvCqInitAttrEx.LAYOUT);
            attr.set(U32, IbvCqInitAttrEx.CQE_OFFSET, depth);
            attr.set(U64, IbvCqInitAttrEx.WC_FLAGS_OFFSET, IbvCqInitAttrEx.IBV_WC_STANDARD_FLAGS);
            final MemorySegment dvAttr = arena.allocate(Mlx5dvCqInitAttr.LAYOUT);
            dvAttr.set(U64, Mlx5dvCqInitAttr.COMP_MASK_OFFSET,
                Mlx5dvCqInitAttr.MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE);
            dvAttr.set(U8, Mlx5dvCqInitAttr.CQE_COMP_RES_FORMAT_OFFSET, (byte)format);
            final MemorySegment raw = Mlx5dv.mlx5dv_create_cq(state, context.handle, attr, dvAttr);
            if (raw.address() == 0)
            {
                throw new VerbsException("mlx5dv_create_cq", CallState.errno(state), "depth " + depth +
                    ", CQE compression format " + format);
            }
            return new CompletionQueue(context, arena, raw.reinterpret(IbvCq.LAYOUT.byteSize(), arena, null), 64,
                null, format);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * The MLX5DV_CQE_RES_FORMAT_* value the CQ was created with ({@link Context#createCompressedCq}), 0 if its CQEs
     * are never compressed. Any thread.
     *
     * @return the format, or 0
     */
    public int cqeCompression()
    {
        return cqeCompression;
    }

    /**
     * A CQ of 64-byte CQEs created with {@code ibv_create_cq_ex} and the given IBV_WC_EX_* flags, so that libmlx5's
     * {@code ibv_wc_read_*} (completion timestamps, cvlan, flow tag) can read it too; {@link #pointer()} is then a
     * {@code struct ibv_cq_ex *}. CqPoller polls it like any other CQ.
     */
    static CompletionQueue createEx(final Context context, final int depth, final long wcFlags)
    {
        if (depth < 1)
        {
            throw new IllegalArgumentException("CQ depth must be >= 1, got " + depth);
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvCqInitAttrEx.LAYOUT);
            attr.set(U32, IbvCqInitAttrEx.CQE_OFFSET, depth);
            attr.set(U64, IbvCqInitAttrEx.WC_FLAGS_OFFSET, wcFlags);
            final MemorySegment raw = io.mlx5j.bindings.InlineVerbs.ibv_create_cq_ex(state, context.handle, attr);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_create_cq_ex", CallState.errno(state), "depth " + depth +
                    ", wc_flags 0x" + Long.toHexString(wcFlags));
            }
            return new CompletionQueue(context, arena,
                raw.reinterpret(io.mlx5j.bindings.IbvCqEx.LAYOUT.byteSize(), arena, null), 64, null);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * CQEs the CQ holds (granted by the library, at least the requested depth).
     *
     * @return the number of CQEs
     */
    public int depth()
    {
        ensureOpen();
        return depth;
    }

    /**
     * 64 or 128, as requested. {@link CqRing#cqeSize()} is what the device really uses.
     *
     * @return the requested CQE size in bytes
     */
    public int cqeSize()
    {
        return cqeSize;
    }

    /** {@return the channel events go to, or null} */
    public CompletionChannel channel()
    {
        return channel;
    }

    /**
     * Arms the CQ through libmlx5 ({@code ibv_req_notify_cq}): the next CQE (or next solicited one) raises an event
     * on the channel. The direct path arms with {@code CqDoorbell.arm} instead; do not mix the two on one CQ, since
     * each keeps its own arm sequence number.
     *
     * @param solicitedOnly true to raise the event only for a solicited CQE (or an error one)
     */
    public void requestNotify(final boolean solicitedOnly)
    {
        ensureOpen();
        final int rc = InlineVerbs.ibv_req_notify_cq(handle, solicitedOnly ? 1 : 0);
        if (rc != 0)
        {
            throw new VerbsException("ibv_req_notify_cq", rc);
        }
    }

    void eventReceived()
    {
        unackedEvents.incrementAndGet();
        eventsReceived++;
    }

    /**
     * Events received through the channel so far. libmlx5 advances its arm_sn on every event (mlx5_cq_event); a Java
     * arm doorbell must do the same ({@code CqDoorbell.eventReceived()}).
     *
     * @return the number of events received
     */
    public int eventsReceived()
    {
        return eventsReceived;
    }

    /** Acknowledges every event received so far ({@code ibv_ack_cq_events}); cheap to batch. */
    public void ackEvents()
    {
        ensureOpen();
        final int n = unackedEvents.getAndSet(0);
        if (n > 0)
        {
            Verbs.ibv_ack_cq_events(handle, n);
        }
    }

    /**
     * {@return the raw CQE ring ({@code mlx5dv_init_obj} with MLX5DV_OBJ_CQ), computed once} Requires an mlx5 device.
     */
    public CqRing ring()
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

    private CqRing initObj()
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment obj = tmp.allocate(Mlx5dvObj.LAYOUT);
            final MemorySegment out = tmp.allocate(Mlx5dvCq.LAYOUT);
            obj.set(C_POINTER, Mlx5dvObj.CQ_IN_OFFSET, handle);
            obj.set(C_POINTER, Mlx5dvObj.CQ_OUT_OFFSET, out);
            final int rc = Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_CQ);
            if (rc != 0)
            {
                throw new VerbsException("mlx5dv_init_obj", rc,
                    "CQ of " + owner.deviceName() + " (is it an mlx5 device?)");
            }
            final int cqeCnt = out.get(U32, Mlx5dvCq.CQE_CNT_OFFSET);
            final int size = out.get(U32, Mlx5dvCq.CQE_SIZE_OFFSET);
            final MemorySegment buf = Rings.view(out.get(C_POINTER, Mlx5dvCq.BUF_OFFSET), (long) cqeCnt * size, arena,
                "cq.buf");
            final MemorySegment dbrec = Rings.view(out.get(C_POINTER, Mlx5dvCq.DBREC_OFFSET), Rings.DBREC_BYTES, arena,
                "cq.dbrec");
            final MemorySegment uar = Rings.view(out.get(C_POINTER, Mlx5dvCq.CQ_UAR_OFFSET),
                Mlx5dvCq.MLX5_CQ_DOORBELL + 8, arena, "cq.cq_uar");
            return new CqRing(out.get(U32, Mlx5dvCq.CQN_OFFSET), buf, cqeCnt, size, dbrec, uar);
        }
    }

    @Override
    void beforeDestroy()
    {
        // ibv_destroy_cq waits until every event it delivered has been acknowledged
        ackEvents();
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return Verbs.ibv_destroy_cq(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_destroy_cq";
    }

    @Override
    public String toString()
    {
        return "CompletionQueue(depth " + depth + (isClosed() ? ", closed)" : ")");
    }
}
