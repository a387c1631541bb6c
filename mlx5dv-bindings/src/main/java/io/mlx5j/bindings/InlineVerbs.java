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

    /** {@code *(void **)(base + offset)} where base is a C object of {@code size} bytes. */
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

    /** {@code qp->context->ops.post_send}. */
    public static MemorySegment postSendFn(final MemorySegment qp)
    {
        return opsFn(qp, IbvQp.LAYOUT.byteSize(), IbvQp.CONTEXT_OFFSET, IbvContextOps.POST_SEND_OFFSET);
    }

    /** {@code qp->context->ops.post_recv}. */
    public static MemorySegment postRecvFn(final MemorySegment qp)
    {
        return opsFn(qp, IbvQp.LAYOUT.byteSize(), IbvQp.CONTEXT_OFFSET, IbvContextOps.POST_RECV_OFFSET);
    }

    /** {@code srq->context->ops.post_srq_recv}. */
    public static MemorySegment postSrqRecvFn(final MemorySegment srq)
    {
        return opsFn(srq, IbvSrq.LAYOUT.byteSize(), IbvSrq.CONTEXT_OFFSET, IbvContextOps.POST_SRQ_RECV_OFFSET);
    }

    /** {@code cq->context->ops.poll_cq}. */
    public static MemorySegment pollCqFn(final MemorySegment cq)
    {
        return opsFn(cq, IbvCq.LAYOUT.byteSize(), IbvCq.CONTEXT_OFFSET, IbvContextOps.POLL_CQ_OFFSET);
    }

    /** {@code cq->context->ops.req_notify_cq}. */
    public static MemorySegment reqNotifyCqFn(final MemorySegment cq)
    {
        return opsFn(cq, IbvCq.LAYOUT.byteSize(), IbvCq.CONTEXT_OFFSET, IbvContextOps.REQ_NOTIFY_CQ_OFFSET);
    }

    /** An {@code ibv_qp_ex} member function pointer, e.g. {@code wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_OFFSET)}. */
    public static MemorySegment wrFn(final MemorySegment qpx, final long memberOffset)
    {
        return pointerAt(qpx, IbvQpEx.LAYOUT.byteSize(), memberOffset);
    }

    /**
     * {@code verbs_get_ctx_op(context, op)}: the verbs_context member at {@code opOffset}, or NULL when the context is
     * not extended, the provider's verbs_context is too old to have that member, or the member is NULL.
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

    /** {@code ibv_post_send}: 0 or errno; {@code badWr} (a {@code struct ibv_send_wr **}) receives the failing WR. */
    public static int ibv_post_send(final MemorySegment qp, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postSendFn(qp), qp, wr, badWr);
    }

    /** {@code ibv_post_recv}: 0 or errno. */
    public static int ibv_post_recv(final MemorySegment qp, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postRecvFn(qp), qp, wr, badWr);
    }

    /** {@code ibv_post_srq_recv}: 0 or errno. */
    public static int ibv_post_srq_recv(final MemorySegment srq, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postSrqRecvFn(srq), srq, wr, badWr);
    }

    /** {@code ibv_poll_cq}: number of ibv_wc written (0..numEntries), or negative on error. */
    public static int ibv_poll_cq(final MemorySegment cq, final int numEntries, final MemorySegment wc)
    {
        return callPollCq(pollCqFn(cq), cq, numEntries, wc);
    }

    /** {@code ibv_req_notify_cq}: 0 or errno. */
    public static int ibv_req_notify_cq(final MemorySegment cq, final int solicitedOnly)
    {
        return callReqNotifyCq(reqNotifyCqFn(cq), cq, solicitedOnly);
    }

    /** Calls a resolved post_send / post_recv / post_srq_recv pointer. */
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

    /** {@link #callPost} linked with {@code critical(false)}. */
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

    /** Calls a resolved poll_cq pointer. */
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

    /** {@link #callPollCq} linked with {@code critical(false)}. */
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

    /** Calls a resolved req_notify_cq pointer. */
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

    /** {@link #callReqNotifyCq} linked with {@code critical(false)}. */
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

    /** {@code ibv_create_cq_ex}: {@code verbs_context.create_cq_ex}, or NULL with errno EOPNOTSUPP when absent. */
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

    /** {@code ibv_modify_wq}: 0 or errno (EOPNOTSUPP when the provider has no modify_wq), as verbs.h. */
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

    /** {@code ibv_destroy_wq}: 0 or errno. */
    public static int ibv_destroy_wq(final MemorySegment wq)
    {
        return destroyObj(verbsContextOp(pointerAt(wq, IbvWq.LAYOUT.byteSize(), IbvWq.CONTEXT_OFFSET),
            VerbsContext.DESTROY_WQ_OFFSET), wq);
    }

    /**
     * {@code ibv_create_rwq_ind_table}: {@code verbs_context.create_rwq_ind_table(context, attr)}, or NULL with errno
     * EOPNOTSUPP when absent (verbs.h).
     */
    public static MemorySegment ibv_create_rwq_ind_table(final MemorySegment callState, final MemorySegment context,
        final MemorySegment initAttr)
    {
        return callCreateEx(callState, verbsContextOp(context, VerbsContext.CREATE_RWQ_IND_TABLE_OFFSET), context,
            initAttr);
    }

    /** {@code ibv_destroy_rwq_ind_table}: 0 or errno. */
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

    /** {@code wq->post_recv}: the provider's ibv_post_wq_recv. */
    public static MemorySegment postWqRecvFn(final MemorySegment wq)
    {
        return pointerAt(wq, IbvWq.LAYOUT.byteSize(), IbvWq.POST_RECV_OFFSET);
    }

    /** {@code ibv_post_wq_recv}: 0 or errno. */
    public static int ibv_post_wq_recv(final MemorySegment wq, final MemorySegment wr, final MemorySegment badWr)
    {
        return callPost(postWqRecvFn(wq), wq, wr, badWr);
    }

    // ---------------------------------------------------------------- flow steering

    /**
     * {@code ibv_create_flow}: {@code verbs_context.ibv_create_flow(qp, attr)}, or NULL with errno EOPNOTSUPP when
     * the provider has none (verbs.h).
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

    /** {@code ibv_destroy_flow}: 0 or errno (EOPNOTSUPP when the provider has no destroy_flow). */
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

    /** An {@code ibv_cq_ex} member function pointer, e.g. {@code cqFn(cq, IbvCqEx.READ_COMPLETION_TS_OFFSET)}. */
    public static MemorySegment cqFn(final MemorySegment cqEx, final long memberOffset)
    {
        return pointerAt(cqEx, IbvCqEx.LAYOUT.byteSize(), memberOffset);
    }

    /** {@code ibv_start_poll(cq, attr)}: 0, ENOENT when empty, or errno. */
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

    /** {@code ibv_next_poll(cq)}: 0, ENOENT when empty, or errno. */
    public static int ibv_next_poll(final MemorySegment cqEx)
    {
        return callCqInt(cqFn(cqEx, IbvCqEx.NEXT_POLL_OFFSET), cqEx);
    }

    /** {@code ibv_end_poll(cq)}. */
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

    /** A 32-bit {@code ibv_wc_read_*} (byte_len, wc_flags, qp_num, flow_tag, ...) or next_poll through {@code fn}. */
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

    /** A 64-bit {@code ibv_wc_read_*} (completion_ts, completion_wallclock_ns) through {@code fn}. */
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

    /** A 16-bit {@code ibv_wc_read_*} (cvlan) through {@code fn}, zero-extended. */
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

    /** An 8-bit {@code ibv_wc_read_*} (sl, dlid_path_bits) through {@code fn}, zero-extended. */
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

    /** Sets {@code qpx->wr_id}, read by the next ibv_wr_* builder call. */
    public static void wrId(final MemorySegment qpx, final long wrId)
    {
        qpx.reinterpret(IbvQpEx.LAYOUT.byteSize()).set(U64, IbvQpEx.WR_ID_OFFSET, wrId);
    }

    /** Sets {@code qpx->wr_flags} (IBV_SEND_* bits), read by the next ibv_wr_* builder call. */
    public static void wrFlags(final MemorySegment qpx, final int wrFlags)
    {
        qpx.reinterpret(IbvQpEx.LAYOUT.byteSize()).set(C_INT, IbvQpEx.WR_FLAGS_OFFSET, wrFlags);
    }

    public static void ibv_wr_start(final MemorySegment qpx)
    {
        callWr(wrFn(qpx, IbvQpEx.WR_START_OFFSET), qpx);
    }

    public static int ibv_wr_complete(final MemorySegment qpx)
    {
        return callWrComplete(wrFn(qpx, IbvQpEx.WR_COMPLETE_OFFSET), qpx);
    }

    public static void ibv_wr_abort(final MemorySegment qpx)
    {
        callWr(wrFn(qpx, IbvQpEx.WR_ABORT_OFFSET), qpx);
    }

    public static void ibv_wr_send(final MemorySegment qpx)
    {
        callWr(wrFn(qpx, IbvQpEx.WR_SEND_OFFSET), qpx);
    }

    /** {@code immData} is the __be32 as stored in memory, i.e. already in network order. */
    public static void ibv_wr_send_imm(final MemorySegment qpx, final int immData)
    {
        callWrI(wrFn(qpx, IbvQpEx.WR_SEND_IMM_OFFSET), qpx, immData);
    }

    public static void ibv_wr_send_inv(final MemorySegment qpx, final int invalidateRkey)
    {
        callWrI(wrFn(qpx, IbvQpEx.WR_SEND_INV_OFFSET), qpx, invalidateRkey);
    }

    public static void ibv_wr_local_inv(final MemorySegment qpx, final int invalidateRkey)
    {
        callWrI(wrFn(qpx, IbvQpEx.WR_LOCAL_INV_OFFSET), qpx, invalidateRkey);
    }

    public static void ibv_wr_rdma_write(final MemorySegment qpx, final int rkey, final long remoteAddr)
    {
        callWrIL(wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_OFFSET), qpx, rkey, remoteAddr);
    }

    public static void ibv_wr_rdma_read(final MemorySegment qpx, final int rkey, final long remoteAddr)
    {
        callWrIL(wrFn(qpx, IbvQpEx.WR_RDMA_READ_OFFSET), qpx, rkey, remoteAddr);
    }

    /** {@code immData} is the __be32 as stored in memory, i.e. already in network order. */
    public static void ibv_wr_rdma_write_imm(final MemorySegment qpx, final int rkey, final long remoteAddr,
        final int immData)
    {
        callWrILI(wrFn(qpx, IbvQpEx.WR_RDMA_WRITE_IMM_OFFSET), qpx, rkey, remoteAddr, immData);
    }

    public static void ibv_wr_set_sge(final MemorySegment qpx, final int lkey, final long addr, final int length)
    {
        callWrILI(wrFn(qpx, IbvQpEx.WR_SET_SGE_OFFSET), qpx, lkey, addr, length);
    }

    public static void ibv_wr_atomic_fetch_add(final MemorySegment qpx, final int rkey, final long remoteAddr,
        final long add)
    {
        invoke(WrILLFn.HANDLE, wrFn(qpx, IbvQpEx.WR_ATOMIC_FETCH_ADD_OFFSET), qpx, rkey, remoteAddr, add);
    }

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

    /** {@code list} holds {@code num} {@code struct ibv_sge}. */
    public static void ibv_wr_set_sge_list(final MemorySegment qpx, final long num, final MemorySegment list)
    {
        callWrLP(wrFn(qpx, IbvQpEx.WR_SET_SGE_LIST_OFFSET), qpx, num, list);
    }

    /** {@code list} holds {@code num} {@code struct ibv_data_buf}. */
    public static void ibv_wr_set_inline_data_list(final MemorySegment qpx, final long num, final MemorySegment list)
    {
        callWrLP(wrFn(qpx, IbvQpEx.WR_SET_INLINE_DATA_LIST_OFFSET), qpx, num, list);
    }

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

    /** Calls a resolved {@code void (*)(struct ibv_qp_ex *)} (wr_start, wr_abort, wr_send). */
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

    /** {@link #callWr} linked with {@code critical(false)}. */
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

    /** Calls a resolved wr_complete. */
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

    /** {@link #callWrComplete} linked with {@code critical(false)}. */
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

    /** Calls a resolved {@code void (*)(struct ibv_qp_ex *, uint32_t)}. */
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

    /** Calls a resolved {@code void (*)(struct ibv_qp_ex *, uint32_t, uint64_t)} (wr_rdma_write, wr_rdma_read). */
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

    /** {@link #callWrIL} linked with {@code critical(false)}. */
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

    /** {@link #callWrILI} linked with {@code critical(false)}. */
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
