// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_LONG;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * The static inline functions of verbs.h (rdma-core 44), done the way verbs.h does them: read a function pointer
 * out of a provider struct and call it. There is no symbol for ibv_post_send, ibv_post_recv, ibv_poll_cq,
 * ibv_req_notify_cq, ibv_post_srq_recv, ibv_create_qp_ex, ibv_create_cq_ex, the {@code ibv_query_port} macro or any
 * {@code ibv_wr_*}.
 * <p>
 * Two forms: {@code ibv_*} resolves the pointer on every call, exactly like the C inline (the pointer chase
 * creates a few small segment objects per call); {@code call*} takes a pointer resolved once with the matching
 * {@code *Fn} method (no pointer chase), for loops and benchmarks. The {@code *Critical} variants link with
 * {@code Linker.Option.critical(false)}: these provider calls only touch user memory, a spinlock and the UAR page, so
 * skipping the thread-state transition is sound; they must not be used for a call that may block.
 * <p>
 * One downcall handle per C signature, in a lazily initialised holder.
 */
public final class InlineVerbs
{
    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code ibv_context.abi_compat} of a context wrapped in verbs_context. */
    public static final long VERBS_ABI_IS_EXTENDED = -1L;

    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    private InlineVerbs()
    {
    }

    // ---------------------------------------------------------------- signatures

    /** struct ibv_flow *(*)(struct ibv_qp *, struct ibv_flow_attr *) with errno: verbs_context.ibv_create_flow. */
    private static final class CreateFlowFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD, CallState.OPTION);
    }

    /** int (*)(struct ibv_flow *): verbs_context.ibv_destroy_flow. */
    private static final class DestroyFlowFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** int (*)(struct ibv_cq_ex *, struct ibv_poll_cq_attr *): ibv_cq_ex.start_poll. */
    private static final class StartPollFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** int (*)(struct ibv_cq_ex *): next_poll; also the 32-bit readers (read_byte_len, read_wc_flags, ...). */
    private static final class CqIntFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** void (*)(struct ibv_cq_ex *): end_poll. */
    private static final class CqVoidFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** uint64_t (*)(struct ibv_cq_ex *): read_completion_ts, read_completion_wallclock_ns. */
    private static final class CqLongFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(U64, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** uint16_t (*)(struct ibv_cq_ex *): read_cvlan. */
    private static final class CqShortFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(CTypes.U16, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** uint8_t (*)(struct ibv_cq_ex *): read_sl, read_dlid_path_bits. */
    private static final class CqByteFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(U8, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** int (*)(void *, void *, void **): post_send, post_recv, post_srq_recv. */
    private static final class PostFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** int (*)(struct ibv_cq *, int, struct ibv_wc *): poll_cq. */
    private static final class PollCqFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** int (*)(void *, int): req_notify_cq. */
    private static final class PtrIntToIntFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** int (*)(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t): verbs_context.query_port. */
    private static final class QueryPortFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, U8, C_POINTER, C_LONG);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** void *(*)(struct ibv_context *, void *attr) with errno: create_qp_ex, create_cq_ex. */
    private static final class CreateExFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD, CallState.OPTION);
    }

    /** int (*)(struct ibv_srq *, uint32_t *): get_srq_num. */
    private static final class GetSrqNumFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** void (*)(struct ibv_qp_ex *): wr_start, wr_abort, wr_send. */
    private static final class WrVoidFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** int (*)(struct ibv_qp_ex *): wr_complete. */
    private static final class WrIntFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** void (*)(struct ibv_qp_ex *, uint32_t): wr_send_imm, wr_send_inv, wr_local_inv, wr_set_xrc_srqn. */
    private static final class WrIFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** void (*)(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr): wr_rdma_write, wr_rdma_read. */
    private static final class WrILFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_INT, U64);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** void (*)(struct ibv_qp_ex *, uint32_t, uint64_t, uint32_t): wr_rdma_write_imm, wr_set_sge. */
    private static final class WrILIFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_INT, U64, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
        static final MethodHandle CRITICAL_HANDLE = NativeLibs.downcall(FD, CRITICAL);
    }

    /** void (*)(struct ibv_qp_ex *, uint32_t, uint64_t, uint64_t): wr_atomic_fetch_add. */
    private static final class WrILLFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_INT, U64, U64);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** void (*)(struct ibv_qp_ex *, uint32_t, uint64_t, uint64_t, uint64_t): wr_atomic_cmp_swp. */
    private static final class WrILLLFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_INT, U64, U64, U64);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** void (*)(struct ibv_qp_ex *, void *, size_t): wr_set_inline_data. */
    private static final class WrPLFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_POINTER, C_LONG);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** void (*)(struct ibv_qp_ex *, size_t, const void *list): wr_set_sge_list, wr_set_inline_data_list. */
    private static final class WrLPFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_LONG, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** void (*)(struct ibv_qp_ex *, struct ibv_ah *, uint32_t, uint32_t): wr_set_ud_addr. */
    private static final class WrPIIFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.ofVoid(C_POINTER, C_POINTER, C_INT, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    // ---------------------------------------------------------------- pointer resolution

    /**
     * {@code *(void **)(base + offset)} where base is a C object of {@code size} bytes.
     *
     * @param base the C object
     * @param size its size in bytes
     * @param offset the pointer member's offset
     * @return the pointer
     */
    public static MemorySegment pointerAt(final MemorySegment base, final long size, final long offset)
    {
        return base.reinterpret(size).get(C_POINTER, offset);
    }

    private static MemorySegment opsFn(final MemorySegment object, final long objectSize, final long contextOffset,
        final long opOffset)
    {
        final MemorySegment context = pointerAt(object, objectSize, contextOffset);
        return pointerAt(context, IbvContext.LAYOUT.byteSize(), IbvContext.OPS_OFFSET + opOffset);
    }

    /**
     * {@code qp->context->ops.post_send}.
     *
     * @param qp the C {@code struct ibv_qp *}
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment postSendFn(final MemorySegment qp)
    {
        return opsFn(qp, IbvQp.LAYOUT.byteSize(), IbvQp.CONTEXT_OFFSET, IbvContextOps.POST_SEND_OFFSET);
    }

    /**
     * {@code qp->context->ops.post_recv}.
     *
     * @param qp the C {@code struct ibv_qp *}
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment postRecvFn(final MemorySegment qp)
    {
        return opsFn(qp, IbvQp.LAYOUT.byteSize(), IbvQp.CONTEXT_OFFSET, IbvContextOps.POST_RECV_OFFSET);
    }

    /**
     * {@code srq->context->ops.post_srq_recv}.
     *
     * @param srq the C {@code struct ibv_srq *}
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment postSrqRecvFn(final MemorySegment srq)
    {
        return opsFn(srq, IbvSrq.LAYOUT.byteSize(), IbvSrq.CONTEXT_OFFSET, IbvContextOps.POST_SRQ_RECV_OFFSET);
    }

    /**
     * {@code cq->context->ops.poll_cq}.
     *
     * @param cq the C {@code struct ibv_cq *}
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment pollCqFn(final MemorySegment cq)
    {
        return opsFn(cq, IbvCq.LAYOUT.byteSize(), IbvCq.CONTEXT_OFFSET, IbvContextOps.POLL_CQ_OFFSET);
    }

    /**
     * {@code cq->context->ops.req_notify_cq}.
     *
     * @param cq the C {@code struct ibv_cq *}
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment reqNotifyCqFn(final MemorySegment cq)
    {
        return opsFn(cq, IbvCq.LAYOUT.byteSize(), IbvCq.CONTEXT_OFFSET, IbvContextOps.REQ_NOTIFY_CQ_OFFSET);
    }

    /**
     * An {@code ibv_qp_ex} member function pointer, e.g. {@code wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_OFFSET)}.
     *
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param memberOffset the function pointer member's offset
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment wrFn(final MemorySegment qpx, final long memberOffset)
    {
        return pointerAt(qpx, IbvQpEx.LAYOUT.byteSize(), memberOffset);
    }

    /**
     * {@code verbs_get_ctx_op(context, op)}: the verbs_context member at {@code opOffset}, or NULL when the context is
     * not extended, the provider's verbs_context is too old to have that member, or the member is NULL.
     *
     * @param context the C {@code struct ibv_context *}
     * @param opOffset the {@code struct verbs_context} member's offset
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment verbsContextOp(final MemorySegment context, final long opOffset)
    {
        final MemorySegment ctx = context.reinterpret(IbvContext.LAYOUT.byteSize());
        if (ctx.get(C_POINTER, IbvContext.ABI_COMPAT_OFFSET).address() != VERBS_ABI_IS_EXTENDED)
        {
            return MemorySegment.NULL;
        }
        final MemorySegment vctx = MemorySegment.ofAddress(context.address() - VerbsContext.CONTEXT_OFFSET)
            .reinterpret(VerbsContext.LAYOUT.byteSize());
        final long sz = vctx.get(C_LONG, VerbsContext.SZ_OFFSET);
        if (sz < VerbsContext.LAYOUT.byteSize() - opOffset)
        {
            return MemorySegment.NULL;
        }
        return vctx.get(C_POINTER, opOffset);
    }

    // ---------------------------------------------------------------- ibv_context_ops

    /**
     * {@code ibv_post_send}: 0 or errno; {@code badWr} (a {@code struct ibv_send_wr **}) receives the failing WR.
     *
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @param wr the C argument {@code struct ibv_send_wr *wr}
     * @param badWr the C argument {@code struct ibv_send_wr **bad_wr}
     * @return what {@code ibv_post_send} returns ({@code int}); see man ibv_post_send(3)
     */
    public static int ibv_post_send(final MemorySegment qp, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postSendFn(qp), qp, wr, badWr);
    }

    /**
     * {@code ibv_post_recv}: 0 or errno.
     *
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @param wr the C argument {@code struct ibv_recv_wr *wr}
     * @param badWr the C argument {@code struct ibv_recv_wr **bad_wr}
     * @return what {@code ibv_post_recv} returns ({@code int}); see man ibv_post_recv(3)
     */
    public static int ibv_post_recv(final MemorySegment qp, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postRecvFn(qp), qp, wr, badWr);
    }

    /**
     * {@code ibv_post_srq_recv}: 0 or errno.
     *
     * @param srq the C argument {@code struct ibv_srq *srq}
     * @param wr the C argument {@code struct ibv_recv_wr *recv_wr}
     * @param badWr the C argument {@code struct ibv_recv_wr **bad_recv_wr}
     * @return what {@code ibv_post_srq_recv} returns ({@code int}); see man ibv_post_srq_recv(3)
     */
    public static int ibv_post_srq_recv(final MemorySegment srq, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postSrqRecvFn(srq), srq, wr, badWr);
    }

    /**
     * {@code ibv_poll_cq}: number of ibv_wc written (0..numEntries), or negative on error.
     *
     * @param cq the C argument {@code struct ibv_cq *cq}
     * @param numEntries the C argument {@code int num_entries}
     * @param wc the C argument {@code struct ibv_wc *wc}
     * @return what {@code ibv_poll_cq} returns ({@code int}); see man ibv_poll_cq(3)
     */
    public static int ibv_poll_cq(final MemorySegment cq, final int numEntries, final MemorySegment wc)
    {
        return callPollCq(pollCqFn(cq), cq, numEntries, wc);
    }

    /**
     * {@code ibv_req_notify_cq}: 0 or errno.
     *
     * @param cq the C argument {@code struct ibv_cq *cq}
     * @param solicitedOnly the C argument {@code int solicited_only}
     * @return what {@code ibv_req_notify_cq} returns ({@code int}); see man ibv_req_notify_cq(3)
     */
    public static int ibv_req_notify_cq(final MemorySegment cq, final int solicitedOnly)
    {
        return callReqNotifyCq(reqNotifyCqFn(cq), cq, solicitedOnly);
    }

    /**
     * Calls a resolved post_send / post_recv / post_srq_recv pointer.
     *
     * @param fn the resolved function pointer
     * @param obj the QP or SRQ
     * @param wr the first work request
     * @param badWr where the provider stores the failing work request
     * @return what the provider returns: 0, or an errno value
     */
    public static int callPost(final MemorySegment fn, final MemorySegment obj, final MemorySegment wr,
        final MemorySegment badWr)
    {
        try
        {
            return (int) PostFn.HANDLE.invokeExact(fn, obj, wr, badWr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@link #callPost} linked with {@code critical(false)}.
     *
     * @param fn the resolved function pointer
     * @param obj the QP or SRQ
     * @param wr the first work request
     * @param badWr where the provider stores the failing work request
     * @return what the provider returns: 0, or an errno value
     */
    public static int callPostCritical(final MemorySegment fn, final MemorySegment obj, final MemorySegment wr,
        final MemorySegment badWr)
    {
        try
        {
            return (int) PostFn.CRITICAL_HANDLE.invokeExact(fn, obj, wr, badWr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * Calls a resolved poll_cq pointer.
     *
     * @param fn the resolved function pointer
     * @param cq the C {@code struct ibv_cq *}
     * @param numEntries the most completions to return
     * @param wc the {@code struct ibv_wc} array
     * @return what the provider returns: the number of completions, or negative on error
     */
    public static int callPollCq(final MemorySegment fn, final MemorySegment cq, final int numEntries,
        final MemorySegment wc)
    {
        try
        {
            return (int) PollCqFn.HANDLE.invokeExact(fn, cq, numEntries, wc);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@link #callPollCq} linked with {@code critical(false)}.
     *
     * @param fn the resolved function pointer
     * @param cq the C {@code struct ibv_cq *}
     * @param numEntries the most completions to return
     * @param wc the {@code struct ibv_wc} array
     * @return what the provider returns: the number of completions, or negative on error
     */
    public static int callPollCqCritical(final MemorySegment fn, final MemorySegment cq, final int numEntries,
        final MemorySegment wc)
    {
        try
        {
            return (int) PollCqFn.CRITICAL_HANDLE.invokeExact(fn, cq, numEntries, wc);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * Calls a resolved req_notify_cq pointer.
     *
     * @param fn the resolved function pointer
     * @param cq the C {@code struct ibv_cq *}
     * @param solicitedOnly 1 for solicited completions only, else 0
     * @return what the provider returns: 0, or an errno value
     */
    public static int callReqNotifyCq(final MemorySegment fn, final MemorySegment cq, final int solicitedOnly)
    {
        try
        {
            return (int) PtrIntToIntFn.HANDLE.invokeExact(fn, cq, solicitedOnly);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@link #callReqNotifyCq} linked with {@code critical(false)}.
     *
     * @param fn the resolved function pointer
     * @param cq the C {@code struct ibv_cq *}
     * @param solicitedOnly 1 for solicited completions only, else 0
     * @return what the provider returns: 0, or an errno value
     */
    public static int callReqNotifyCqCritical(final MemorySegment fn, final MemorySegment cq, final int solicitedOnly)
    {
        try
        {
            return (int) PtrIntToIntFn.CRITICAL_HANDLE.invokeExact(fn, cq, solicitedOnly);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    // ---------------------------------------------------------------- verbs_context

    /**
     * The {@code ibv_query_port} macro: the provider's {@code verbs_context.query_port} with the full
     * {@code sizeof(struct ibv_port_attr)} when it has one, otherwise the exported compat symbol on a zeroed struct.
     *
     * @param context the C argument {@code struct ibv_context *context}
     * @param portNum the C argument {@code uint8_t port_num}
     * @param portAttr the C argument {@code struct _compat_ibv_port_attr *port_attr}
     * @return what {@code ibv_query_port} returns ({@code int}); see man ibv_query_port(3)
     */
    public static int ibv_query_port(final MemorySegment context, final byte portNum, final MemorySegment portAttr)
    {
        final MemorySegment fn = verbsContextOp(context, VerbsContext.QUERY_PORT_OFFSET);
        if (fn.address() == 0)
        {
            portAttr.reinterpret(IbvPortAttr.LAYOUT.byteSize()).fill((byte)0);
            return Verbs.ibv_query_port(context, portNum, portAttr);
        }
        try
        {
            return (int) QueryPortFn.HANDLE.invokeExact(fn, context, portNum, portAttr, IbvPortAttr.LAYOUT.byteSize());
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@code ibv_create_qp_ex}: like verbs.h, a request whose comp_mask is only IBV_QP_INIT_ATTR_PD goes to
     * ibv_create_qp; otherwise {@code verbs_context.create_qp_ex}, or NULL with errno EOPNOTSUPP when absent.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param qpInitAttrEx the C argument {@code struct ibv_qp_init_attr_ex *qp_init_attr_ex}
     * @return what {@code ibv_create_qp_ex} returns ({@code struct ibv_qp *}); see man ibv_create_qp_ex(3)
     */
    public static MemorySegment ibv_create_qp_ex(final MemorySegment callState, final MemorySegment context,
        final MemorySegment qpInitAttrEx)
    {
        final MemorySegment attr = qpInitAttrEx.reinterpret(IbvQpInitAttrEx.LAYOUT.byteSize());
        if (attr.get(CTypes.U32, IbvQpInitAttrEx.COMP_MASK_OFFSET) == IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD)
        {
            return Verbs.ibv_create_qp(callState, attr.get(C_POINTER, IbvQpInitAttrEx.PD_OFFSET), attr);
        }
        return callCreateEx(callState, verbsContextOp(context, VerbsContext.CREATE_QP_EX_OFFSET), context, attr);
    }

    /** int (*)(struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t). */
    private static final class QueryDeviceExFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_LONG);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /**
     * {@code ibv_query_device_ex} with no input: like verbs.h, {@code verbs_context.query_device_ex} with
     * sizeof(struct ibv_device_attr_ex), and where that op is absent or answers EOPNOTSUPP/ENOSYS, a zeroed
     * attribute with only orig_attr filled by ibv_query_device. 0 or an errno value.
     *
     * @param context the C {@code struct ibv_context *}
     * @param attrEx the C {@code struct ibv_device_attr_ex *} to fill
     * @return what {@code ibv_query_device_ex} returns ({@code int}); see man ibv_query_device_ex(3)
     */
    public static int ibv_query_device_ex(final MemorySegment context, final MemorySegment attrEx)
    {
        final MemorySegment attr = attrEx.reinterpret(IbvDeviceAttrEx.LAYOUT.byteSize());
        final MemorySegment fn = verbsContextOp(context, VerbsContext.QUERY_DEVICE_EX_OFFSET);
        if (fn.address() != 0)
        {
            final int rc;
            try
            {
                rc = (int) QueryDeviceExFn.HANDLE.invokeExact(fn, context, MemorySegment.NULL, attr,
                    IbvDeviceAttrEx.LAYOUT.byteSize());
            }
            catch (final Error | RuntimeException ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new AssertionError("unreachable", ex);
            }
            if (rc != CallState.EOPNOTSUPP && rc != ENOSYS)
            {
                return rc;
            }
        }
        attr.fill((byte) 0);
        return Verbs.ibv_query_device(context, attr.asSlice(IbvDeviceAttrEx.ORIG_ATTR_OFFSET,
            IbvDeviceAttr.LAYOUT.byteSize()));
    }

    /** ENOSYS of asm-generic/errno-base.h: an op the provider does not implement (verbs.h falls back on it). */
    private static final int ENOSYS = 38;

    /**
     * {@code ibv_create_cq_ex}: {@code verbs_context.create_cq_ex}, or NULL with errno EOPNOTSUPP when absent.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param cqInitAttrEx the C argument {@code struct ibv_cq_init_attr_ex *cq_attr}
     * @return what {@code ibv_create_cq_ex} returns ({@code struct ibv_cq_ex *}); see man ibv_create_cq_ex(3)
     */
    public static MemorySegment ibv_create_cq_ex(final MemorySegment callState, final MemorySegment context,
        final MemorySegment cqInitAttrEx)
    {
        return callCreateEx(callState, verbsContextOp(context, VerbsContext.CREATE_CQ_EX_OFFSET), context,
            cqInitAttrEx);
    }

    private static MemorySegment callCreateEx(final MemorySegment callState, final MemorySegment fn,
        final MemorySegment context, final MemorySegment attr)
    {
        if (fn.address() == 0)
        {
            CallState.errno(callState, CallState.EOPNOTSUPP);
            return MemorySegment.NULL;
        }
        try
        {
            return (MemorySegment) CreateExFn.HANDLE.invokeExact(fn, callState, context, attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    // ---------------------------------------------------------------- XRC domains and SRQs

    /**
     * {@code ibv_open_xrcd}: {@code verbs_context.open_xrcd(context, attr)}, or NULL with errno EOPNOTSUPP when absent
     * (verbs.h).
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param xrcdInitAttr the C argument {@code struct ibv_xrcd_init_attr *xrcd_init_attr}
     * @return what {@code ibv_open_xrcd} returns ({@code struct ibv_xrcd *}); see man ibv_open_xrcd(3)
     */
    public static MemorySegment ibv_open_xrcd(final MemorySegment callState, final MemorySegment context,
        final MemorySegment xrcdInitAttr)
    {
        return callCreateEx(callState, verbsContextOp(context, VerbsContext.OPEN_XRCD_OFFSET), context, xrcdInitAttr);
    }

    /**
     * {@code ibv_close_xrcd}: {@code verbs_context.close_xrcd(xrcd)} of the domain's context; 0 or errno.
     *
     * @param xrcd the C argument {@code struct ibv_xrcd *xrcd} (its first member is the context)
     * @return what {@code ibv_close_xrcd} returns ({@code int}); see man ibv_close_xrcd(3)
     */
    public static int ibv_close_xrcd(final MemorySegment xrcd)
    {
        return destroyObj(verbsContextOp(pointerAt(xrcd, C_POINTER.byteSize(), 0), VerbsContext.CLOSE_XRCD_OFFSET),
            xrcd);
    }

    /**
     * {@code ibv_create_srq_ex}: as verbs.h, a request of only PD (and type BASIC) goes to ibv_create_srq; otherwise
     * {@code verbs_context.create_srq_ex}, or NULL with errno EOPNOTSUPP when absent.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param srqInitAttrEx the C argument {@code struct ibv_srq_init_attr_ex *srq_init_attr_ex}
     * @return what {@code ibv_create_srq_ex} returns ({@code struct ibv_srq *}); see man ibv_create_srq_ex(3)
     */
    public static MemorySegment ibv_create_srq_ex(final MemorySegment callState, final MemorySegment context,
        final MemorySegment srqInitAttrEx)
    {
        final MemorySegment attr = srqInitAttrEx.reinterpret(IbvSrqInitAttrEx.LAYOUT.byteSize());
        final int mask = attr.get(CTypes.U32, IbvSrqInitAttrEx.COMP_MASK_OFFSET);
        if ((mask & ~(IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE)) == 0
            && (mask & IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD) != 0
            && ((mask & IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE) == 0
                || attr.get(C_INT, IbvSrqInitAttrEx.SRQ_TYPE_OFFSET) == IbvSrqInitAttrEx.IBV_SRQT_BASIC))
        {
            return Verbs.ibv_create_srq(callState, attr.get(C_POINTER, IbvSrqInitAttrEx.PD_OFFSET), attr);
        }
        return callCreateEx(callState, verbsContextOp(context, VerbsContext.CREATE_SRQ_EX_OFFSET), context, attr);
    }

    /**
     * {@code ibv_get_srq_num}: {@code verbs_context.get_srq_num(srq, srq_num)}; 0 or errno (EOPNOTSUPP when absent).
     *
     * @param srq the C argument {@code struct ibv_srq *srq}
     * @param srqNum the C argument {@code uint32_t *srq_num}, written on success
     * @return what {@code ibv_get_srq_num} returns ({@code int}); see man ibv_get_srq_num(3)
     */
    public static int ibv_get_srq_num(final MemorySegment srq, final MemorySegment srqNum)
    {
        final MemorySegment fn = verbsContextOp(pointerAt(srq, IbvSrq.LAYOUT.byteSize(), IbvSrq.CONTEXT_OFFSET),
            VerbsContext.GET_SRQ_NUM_OFFSET);
        if (fn.address() == 0)
        {
            return CallState.EOPNOTSUPP;
        }
        try
        {
            return (int) GetSrqNumFn.HANDLE.invokeExact(fn, srq, srqNum);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    // ---------------------------------------------------------------- receive WQs and indirection tables

    /** int (*)(struct ibv_wq *, struct ibv_wq_attr *): verbs_context.modify_wq. */
    private static final class ModifyWqFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /** int (*)(void *): verbs_context.destroy_wq, destroy_rwq_ind_table. */
    private static final class DestroyObjFn
    {
        static final FunctionDescriptor FD = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(FD);
    }

    /**
     * {@code ibv_modify_wq}: 0 or errno (EOPNOTSUPP when the provider has no modify_wq), as verbs.h.
     *
     * @param wq the C argument {@code struct ibv_wq *wq}
     * @param wqAttr the C argument {@code struct ibv_wq_attr *wq_attr}
     * @return what {@code ibv_modify_wq} returns ({@code int}); see man ibv_modify_wq(3)
     */
    public static int ibv_modify_wq(final MemorySegment wq, final MemorySegment wqAttr)
    {
        final MemorySegment fn = verbsContextOp(pointerAt(wq, IbvWq.LAYOUT.byteSize(), IbvWq.CONTEXT_OFFSET),
            VerbsContext.MODIFY_WQ_OFFSET);
        if (fn.address() == 0)
        {
            return CallState.EOPNOTSUPP;
        }
        try
        {
            return (int) ModifyWqFn.HANDLE.invokeExact(fn, wq, wqAttr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@code ibv_destroy_wq}: 0 or errno.
     *
     * @param wq the C argument {@code struct ibv_wq *wq}
     * @return what {@code ibv_destroy_wq} returns ({@code int}); see man ibv_destroy_wq(3)
     */
    public static int ibv_destroy_wq(final MemorySegment wq)
    {
        return destroyObj(verbsContextOp(pointerAt(wq, IbvWq.LAYOUT.byteSize(), IbvWq.CONTEXT_OFFSET),
            VerbsContext.DESTROY_WQ_OFFSET), wq);
    }

    /**
     * {@code ibv_create_rwq_ind_table}: {@code verbs_context.create_rwq_ind_table(context, attr)}, or NULL with errno
     * EOPNOTSUPP when absent (verbs.h).
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param initAttr the C argument {@code struct ibv_rwq_ind_table_init_attr *init_attr}
     * @return what {@code ibv_create_rwq_ind_table} returns ({@code struct ibv_rwq_ind_table *}); see man
     *         ibv_create_rwq_ind_table(3)
     */
    public static MemorySegment ibv_create_rwq_ind_table(final MemorySegment callState, final MemorySegment context,
        final MemorySegment initAttr)
    {
        return callCreateEx(callState, verbsContextOp(context, VerbsContext.CREATE_RWQ_IND_TABLE_OFFSET), context,
            initAttr);
    }

    /**
     * {@code ibv_destroy_rwq_ind_table}: 0 or errno.
     *
     * @param table the C argument {@code struct ibv_rwq_ind_table *rwq_ind_table}
     * @return what {@code ibv_destroy_rwq_ind_table} returns ({@code int}); see man ibv_destroy_rwq_ind_table(3)
     */
    public static int ibv_destroy_rwq_ind_table(final MemorySegment table)
    {
        return destroyObj(verbsContextOp(pointerAt(table, IbvRwqIndTable.LAYOUT.byteSize(),
            IbvRwqIndTable.CONTEXT_OFFSET), VerbsContext.DESTROY_RWQ_IND_TABLE_OFFSET), table);
    }

    private static int destroyObj(final MemorySegment fn, final MemorySegment obj)
    {
        if (fn.address() == 0)
        {
            return CallState.EOPNOTSUPP;
        }
        try
        {
            return (int) DestroyObjFn.HANDLE.invokeExact(fn, obj);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@code wq->post_recv}: the provider's ibv_post_wq_recv.
     *
     * @param wq the C {@code struct ibv_wq *}
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment postWqRecvFn(final MemorySegment wq)
    {
        return pointerAt(wq, IbvWq.LAYOUT.byteSize(), IbvWq.POST_RECV_OFFSET);
    }

    /**
     * {@code ibv_post_wq_recv}: 0 or errno.
     *
     * @param wq the C argument {@code struct ibv_wq *wq}
     * @param wr the C argument {@code struct ibv_recv_wr *recv_wr}
     * @param badWr the C argument {@code struct ibv_recv_wr **bad_recv_wr}
     * @return what {@code ibv_post_wq_recv} returns ({@code int})
     */
    public static int ibv_post_wq_recv(final MemorySegment wq, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postWqRecvFn(wq), wq, wr, badWr);
    }

    // ---------------------------------------------------------------- flow steering

    /**
     * {@code ibv_create_flow}: {@code verbs_context.ibv_create_flow(qp, attr)}, or NULL with errno EOPNOTSUPP when
     * the provider has none (verbs.h).
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @param flowAttr the C argument {@code struct ibv_flow_attr *flow}
     * @return what {@code ibv_create_flow} returns ({@code struct ibv_flow *}); see man ibv_create_flow(3)
     */
    public static MemorySegment ibv_create_flow(final MemorySegment callState, final MemorySegment qp,
        final MemorySegment flowAttr)
    {
        final MemorySegment context = pointerAt(qp, IbvQp.LAYOUT.byteSize(), IbvQp.CONTEXT_OFFSET);
        final MemorySegment fn = verbsContextOp(context, VerbsContext.CREATE_FLOW_OFFSET);
        if (fn.address() == 0)
        {
            CallState.errno(callState, CallState.EOPNOTSUPP);
            return MemorySegment.NULL;
        }
        try
        {
            return (MemorySegment) CreateFlowFn.HANDLE.invokeExact(fn, callState, qp, flowAttr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@code ibv_destroy_flow}: 0 or errno (EOPNOTSUPP when the provider has no destroy_flow).
     *
     * @param flow the C argument {@code struct ibv_flow *flow_id}
     * @return what {@code ibv_destroy_flow} returns ({@code int}); see man ibv_destroy_flow(3)
     */
    public static int ibv_destroy_flow(final MemorySegment flow)
    {
        final MemorySegment context = pointerAt(flow, IbvFlow.LAYOUT.byteSize(), IbvFlow.CONTEXT_OFFSET);
        final MemorySegment fn = verbsContextOp(context, VerbsContext.DESTROY_FLOW_OFFSET);
        if (fn.address() == 0)
        {
            return CallState.EOPNOTSUPP;
        }
        try
        {
            return (int) DestroyFlowFn.HANDLE.invokeExact(fn, flow);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    // ---------------------------------------------------------------- ibv_cq_ex polling: ibv_start_poll, ibv_wc_read_*

    /**
     * An {@code ibv_cq_ex} member function pointer, e.g. {@code cqFn(cq, IbvCqEx.READ_COMPLETION_TS_OFFSET)}.
     *
     * @param cqEx the C argument {@code struct ibv_cq_ex *cq}
     * @param memberOffset the function pointer member's offset
     * @return the function pointer (NULL if unset)
     */
    public static MemorySegment cqFn(final MemorySegment cqEx, final long memberOffset)
    {
        return pointerAt(cqEx, IbvCqEx.LAYOUT.byteSize(), memberOffset);
    }

    /**
     * {@code ibv_start_poll(cq, attr)}: 0, ENOENT when empty, or errno.
     *
     * @param cqEx the C argument {@code struct ibv_cq_ex *cq}
     * @param pollCqAttr the C argument {@code struct ibv_poll_cq_attr *attr}
     * @return what {@code ibv_start_poll} returns ({@code int})
     */
    public static int ibv_start_poll(final MemorySegment cqEx, final MemorySegment pollCqAttr)
    {
        try
        {
            return (int) StartPollFn.HANDLE.invokeExact(cqFn(cqEx, IbvCqEx.START_POLL_OFFSET), cqEx, pollCqAttr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@code ibv_next_poll(cq)}: 0, ENOENT when empty, or errno.
     *
     * @param cqEx the C argument {@code struct ibv_cq_ex *cq}
     * @return what {@code ibv_next_poll} returns ({@code int})
     */
    public static int ibv_next_poll(final MemorySegment cqEx)
    {
        return callCqInt(cqFn(cqEx, IbvCqEx.NEXT_POLL_OFFSET), cqEx);
    }

    /**
     * {@code ibv_end_poll(cq)}.
     *
     * @param cqEx the C argument {@code struct ibv_cq_ex *cq}
     */
    public static void ibv_end_poll(final MemorySegment cqEx)
    {
        try
        {
            CqVoidFn.HANDLE.invokeExact(cqFn(cqEx, IbvCqEx.END_POLL_OFFSET), cqEx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * A 32-bit {@code ibv_wc_read_*} (byte_len, wc_flags, qp_num, flow_tag, ...) or next_poll through {@code fn}.
     *
     * @param fn the resolved function pointer
     * @param cqEx the C {@code struct ibv_cq_ex *}
     * @return the value the member returns
     */
    public static int callCqInt(final MemorySegment fn, final MemorySegment cqEx)
    {
        try
        {
            return (int) CqIntFn.HANDLE.invokeExact(fn, cqEx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * A 64-bit {@code ibv_wc_read_*} (completion_ts, completion_wallclock_ns) through {@code fn}.
     *
     * @param fn the resolved function pointer
     * @param cqEx the C {@code struct ibv_cq_ex *}
     * @return the value the member returns
     */
    public static long callCqLong(final MemorySegment fn, final MemorySegment cqEx)
    {
        try
        {
            return (long) CqLongFn.HANDLE.invokeExact(fn, cqEx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * A 16-bit {@code ibv_wc_read_*} (cvlan) through {@code fn}, zero-extended.
     *
     * @param fn the resolved function pointer
     * @param cqEx the C {@code struct ibv_cq_ex *}
     * @return the value the member returns, zero-extended
     */
    public static int callCqShort(final MemorySegment fn, final MemorySegment cqEx)
    {
        try
        {
            return Short.toUnsignedInt((short) CqShortFn.HANDLE.invokeExact(fn, cqEx));
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * An 8-bit {@code ibv_wc_read_*} (sl, dlid_path_bits) through {@code fn}, zero-extended.
     *
     * @param fn the resolved function pointer
     * @param cqEx the C {@code struct ibv_cq_ex *}
     * @return the value the member returns, zero-extended
     */
    public static int callCqByte(final MemorySegment fn, final MemorySegment cqEx)
    {
        try
        {
            return Byte.toUnsignedInt((byte) CqByteFn.HANDLE.invokeExact(fn, cqEx));
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    // ---------------------------------------------------------------- ibv_qp_ex (ibv_wr_*)

    /**
     * Sets {@code qpx->wr_id}, read by the next ibv_wr_* builder call.
     *
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param wrId the {@code wr_id}
     */
    public static void wrId(final MemorySegment qpx, final long wrId)
    {
        qpx.reinterpret(IbvQpEx.LAYOUT.byteSize()).set(U64, IbvQpEx.WR_ID_OFFSET, wrId);
    }

    /**
     * Sets {@code qpx->wr_flags} (IBV_SEND_* bits), read by the next ibv_wr_* builder call.
     *
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param wrFlags the {@code IBV_SEND_*} bits
     */
    public static void wrFlags(final MemorySegment qpx, final int wrFlags)
    {
        qpx.reinterpret(IbvQpEx.LAYOUT.byteSize()).set(C_INT, IbvQpEx.WR_FLAGS_OFFSET, wrFlags);
    }

    /**
     * {@code ibv_wr_start} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_start}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     */
    public static void ibv_wr_start(final MemorySegment qpx)
    {
        callWr(wrFn(qpx, IbvQpEx.WR_START_OFFSET), qpx);
    }

    /**
     * {@code ibv_wr_complete} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_complete}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @return what {@code ibv_wr_complete} returns ({@code int}); see man ibv_wr_complete(3)
     */
    public static int ibv_wr_complete(final MemorySegment qpx)
    {
        return callWrComplete(wrFn(qpx, IbvQpEx.WR_COMPLETE_OFFSET), qpx);
    }

    /**
     * {@code ibv_wr_abort} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_abort}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     */
    public static void ibv_wr_abort(final MemorySegment qpx)
    {
        callWr(wrFn(qpx, IbvQpEx.WR_ABORT_OFFSET), qpx);
    }

    /**
     * {@code ibv_wr_send} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_send}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     */
    public static void ibv_wr_send(final MemorySegment qpx)
    {
        callWr(wrFn(qpx, IbvQpEx.WR_SEND_OFFSET), qpx);
    }

    /**
     * {@code immData} is the __be32 as stored in memory, i.e. already in network order.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param immData the C argument {@code __be32 imm_data}
     */
    public static void ibv_wr_send_imm(final MemorySegment qpx, final int immData)
    {
        callWrI(wrFn(qpx, IbvQpEx.WR_SEND_IMM_OFFSET), qpx, immData);
    }

    /**
     * {@code ibv_wr_send_inv} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_send_inv}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param invalidateRkey the C argument {@code uint32_t invalidate_rkey}
     */
    public static void ibv_wr_send_inv(final MemorySegment qpx, final int invalidateRkey)
    {
        callWrI(wrFn(qpx, IbvQpEx.WR_SEND_INV_OFFSET), qpx, invalidateRkey);
    }

    /**
     * {@code ibv_wr_local_inv} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_local_inv}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param invalidateRkey the C argument {@code uint32_t invalidate_rkey}
     */
    public static void ibv_wr_local_inv(final MemorySegment qpx, final int invalidateRkey)
    {
        callWrI(wrFn(qpx, IbvQpEx.WR_LOCAL_INV_OFFSET), qpx, invalidateRkey);
    }

    /**
     * {@code ibv_wr_rdma_write} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_rdma_write}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param rkey the C argument {@code uint32_t rkey}
     * @param remoteAddr the C argument {@code uint64_t remote_addr}
     */
    public static void ibv_wr_rdma_write(final MemorySegment qpx, final int rkey, final long remoteAddr)
    {
        callWrIL(wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_OFFSET), qpx, rkey, remoteAddr);
    }

    /**
     * {@code ibv_wr_rdma_read} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_rdma_read}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param rkey the C argument {@code uint32_t rkey}
     * @param remoteAddr the C argument {@code uint64_t remote_addr}
     */
    public static void ibv_wr_rdma_read(final MemorySegment qpx, final int rkey, final long remoteAddr)
    {
        callWrIL(wrFn(qpx, IbvQpEx.WR_RDMA_READ_OFFSET), qpx, rkey, remoteAddr);
    }

    /**
     * {@code immData} is the __be32 as stored in memory, i.e. already in network order.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param rkey the C argument {@code uint32_t rkey}
     * @param remoteAddr the C argument {@code uint64_t remote_addr}
     * @param immData the C argument {@code __be32 imm_data}
     */
    public static void ibv_wr_rdma_write_imm(final MemorySegment qpx, final int rkey, final long remoteAddr,
        final int immData)
    {
        callWrILI(wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_IMM_OFFSET), qpx, rkey, remoteAddr, immData);
    }

    /**
     * {@code ibv_wr_set_sge} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_set_sge}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param lkey the C argument {@code uint32_t lkey}
     * @param addr the C argument {@code uint64_t addr}
     * @param length the C argument {@code uint32_t length}
     */
    public static void ibv_wr_set_sge(final MemorySegment qpx, final int lkey, final long addr, final int length)
    {
        callWrILI(wrFn(qpx, IbvQpEx.WR_SET_SGE_OFFSET), qpx, lkey, addr, length);
    }

    /**
     * {@code ibv_wr_atomic_fetch_add} (verbs.h static inline, man ibv_wr_post(3)): calls
     * {@code qpx->wr_atomic_fetch_add}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param rkey the C argument {@code uint32_t rkey}
     * @param remoteAddr the C argument {@code uint64_t remote_addr}
     * @param add the C argument {@code uint64_t add}
     */
    public static void ibv_wr_atomic_fetch_add(final MemorySegment qpx, final int rkey, final long remoteAddr,
        final long add)
    {
        invoke(WrILLFn.HANDLE, wrFn(qpx, IbvQpEx.WR_ATOMIC_FETCH_ADD_OFFSET), qpx, rkey, remoteAddr, add);
    }

    /**
     * {@code ibv_wr_atomic_cmp_swp} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_atomic_cmp_swp}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param rkey the C argument {@code uint32_t rkey}
     * @param remoteAddr the C argument {@code uint64_t remote_addr}
     * @param compare the C argument {@code uint64_t compare}
     * @param swap the C argument {@code uint64_t swap}
     */
    public static void ibv_wr_atomic_cmp_swp(final MemorySegment qpx, final int rkey, final long remoteAddr,
        final long compare, final long swap)
    {
        try
        {
            WrILLLFn.HANDLE.invokeExact(wrFn(qpx, IbvQpEx.WR_ATOMIC_CMP_SWP_OFFSET), qpx, rkey, remoteAddr, compare,
                swap);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@code ibv_wr_set_inline_data} (verbs.h static inline, man ibv_wr_post(3)): calls
     * {@code qpx->wr_set_inline_data}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param addr the C argument {@code void *addr}
     * @param length the C argument {@code size_t length}
     */
    public static void ibv_wr_set_inline_data(final MemorySegment qpx, final MemorySegment addr, final long length)
    {
        try
        {
            WrPLFn.HANDLE.invokeExact(wrFn(qpx, IbvQpEx.WR_SET_INLINE_DATA_OFFSET), qpx, addr, length);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@code list} holds {@code num} {@code struct ibv_sge}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param num the C argument {@code size_t num_sge}
     * @param list the C argument {@code const struct ibv_sge *sg_list}
     */
    public static void ibv_wr_set_sge_list(final MemorySegment qpx, final long num, final MemorySegment list)
    {
        callWrLP(wrFn(qpx, IbvQpEx.WR_SET_SGE_LIST_OFFSET), qpx, num, list);
    }

    /**
     * {@code list} holds {@code num} {@code struct ibv_data_buf}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param num the C argument {@code size_t num_buf}
     * @param list the C argument {@code const struct ibv_data_buf *buf_list}
     */
    public static void ibv_wr_set_inline_data_list(final MemorySegment qpx, final long num, final MemorySegment list)
    {
        callWrLP(wrFn(qpx, IbvQpEx.WR_SET_INLINE_DATA_LIST_OFFSET), qpx, num, list);
    }

    /**
     * {@code ibv_wr_set_ud_addr} (verbs.h static inline, man ibv_wr_post(3)): calls {@code qpx->wr_set_ud_addr}.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @param ah the C argument {@code struct ibv_ah *ah}
     * @param remoteQpn the C argument {@code uint32_t remote_qpn}
     * @param remoteQkey the C argument {@code uint32_t remote_qkey}
     */
    public static void ibv_wr_set_ud_addr(final MemorySegment qpx, final MemorySegment ah, final int remoteQpn,
        final int remoteQkey)
    {
        try
        {
            WrPIIFn.HANDLE.invokeExact(wrFn(qpx, IbvQpEx.WR_SET_UD_ADDR_OFFSET), qpx, ah, remoteQpn, remoteQkey);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * Calls a resolved {@code void (*)(struct ibv_qp_ex *)} (wr_start, wr_abort, wr_send).
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     */
    public static void callWr(final MemorySegment fn, final MemorySegment qpx)
    {
        try
        {
            WrVoidFn.HANDLE.invokeExact(fn, qpx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@link #callWr} linked with {@code critical(false)}.
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     */
    public static void callWrCritical(final MemorySegment fn, final MemorySegment qpx)
    {
        try
        {
            WrVoidFn.CRITICAL_HANDLE.invokeExact(fn, qpx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * Calls a resolved wr_complete.
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @return what wr_complete returns: 0, or an errno value
     */
    public static int callWrComplete(final MemorySegment fn, final MemorySegment qpx)
    {
        try
        {
            return (int) WrIntFn.HANDLE.invokeExact(fn, qpx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@link #callWrComplete} linked with {@code critical(false)}.
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @return what wr_complete returns: 0, or an errno value
     */
    public static int callWrCompleteCritical(final MemorySegment fn, final MemorySegment qpx)
    {
        try
        {
            return (int) WrIntFn.CRITICAL_HANDLE.invokeExact(fn, qpx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * Calls a resolved {@code void (*)(struct ibv_qp_ex *, uint32_t)}.
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param a the first argument after {@code qpx}
     */
    public static void callWrI(final MemorySegment fn, final MemorySegment qpx, final int a)
    {
        try
        {
            WrIFn.HANDLE.invokeExact(fn, qpx, a);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * Calls a resolved {@code void (*)(struct ibv_qp_ex *, uint32_t, uint64_t)} (wr_rdma_write, wr_rdma_read).
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param a the first argument after {@code qpx}
     * @param b the second argument after {@code qpx}
     */
    public static void callWrIL(final MemorySegment fn, final MemorySegment qpx, final int a, final long b)
    {
        try
        {
            WrILFn.HANDLE.invokeExact(fn, qpx, a, b);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@link #callWrIL} linked with {@code critical(false)}.
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param a the first argument after {@code qpx}
     * @param b the second argument after {@code qpx}
     */
    public static void callWrILCritical(final MemorySegment fn, final MemorySegment qpx, final int a, final long b)
    {
        try
        {
            WrILFn.CRITICAL_HANDLE.invokeExact(fn, qpx, a, b);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * Calls a resolved {@code void (*)(struct ibv_qp_ex *, uint32_t, uint64_t, uint32_t)}
     * (wr_set_sge, wr_rdma_write_imm).
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param a the first argument after {@code qpx}
     * @param b the second argument after {@code qpx}
     * @param c the third argument after {@code qpx}
     */
    public static void callWrILI(final MemorySegment fn, final MemorySegment qpx, final int a, final long b,
        final int c)
    {
        try
        {
            WrILIFn.HANDLE.invokeExact(fn, qpx, a, b, c);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    /**
     * {@link #callWrILI} linked with {@code critical(false)}.
     *
     * @param fn the resolved function pointer
     * @param qpx the C {@code struct ibv_qp_ex *}
     * @param a the first argument after {@code qpx}
     * @param b the second argument after {@code qpx}
     * @param c the third argument after {@code qpx}
     */
    public static void callWrILICritical(final MemorySegment fn, final MemorySegment qpx, final int a, final long b,
        final int c)
    {
        try
        {
            WrILIFn.CRITICAL_HANDLE.invokeExact(fn, qpx, a, b, c);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    private static void callWrLP(final MemorySegment fn, final MemorySegment qpx, final long num,
        final MemorySegment list)
    {
        try
        {
            WrLPFn.HANDLE.invokeExact(fn, qpx, num, list);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }

    private static void invoke(final MethodHandle handle, final MemorySegment fn, final MemorySegment qpx, final int a,
        final long b, final long c)
    {
        try
        {
            handle.invokeExact(fn, qpx, a, b, c);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable", ex);
        }
    }
}
