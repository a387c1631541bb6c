// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * Downcalls to the functions libibverbs exports (rdma-core 44), one lazily linked holder per function so that only
 * what is used gets linked. Method names are the C names. Functions that fail with NULL or -1 plus errno take a
 * {@link CallState} segment first; the others return 0 or a positive errno.
 * <p>
 * {@code Linker.Option.critical(false)} is used only for calls that stay in user space and cannot block; every call
 * that talks to the (real or emulated) uverbs device keeps the normal thread-state transition so a GC safepoint is
 * never delayed by a kernel round trip.
 */
public final class Verbs
{
    private static final Linker.Option[] NONE = {};
    private static final Linker.Option[] CAPTURE = {CallState.OPTION};
    private static final Linker.Option[] CRITICAL = {Linker.Option.critical(false)};
    private static final Linker.Option[] CAPTURE_CRITICAL = {CallState.OPTION, Linker.Option.critical(false)};

    private Verbs()
    {
    }

    private static final class ibv_get_device_list$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.ibverbs("ibv_get_device_list"), DESC, CAPTURE);
    }

    /**
     * struct ibv_device **ibv_get_device_list(int *num_devices): NULL-terminated array, NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param num_devices the C argument {@code int *num_devices}
     * @return what {@code ibv_get_device_list} returns ({@code struct ibv_device **}); see man ibv_get_device_list(3)
     */
    public static MemorySegment ibv_get_device_list(final MemorySegment callState, final MemorySegment num_devices)
    {
        try
        {
            return (MemorySegment) ibv_get_device_list$.HANDLE.invokeExact(callState, num_devices);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_get_device_list", ex);
        }
    }

    private static final class ibv_free_device_list$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_free_device_list"), DESC, NONE);
    }

    /**
     * void ibv_free_device_list(struct ibv_device **list).
     *
     * @param list the C argument {@code struct ibv_device **list}
     */
    public static void ibv_free_device_list(final MemorySegment list)
    {
        try
        {
            ibv_free_device_list$.HANDLE.invokeExact(list);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_free_device_list", ex);
        }
    }

    private static final class ibv_get_device_name$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.ibverbs("ibv_get_device_name"), DESC, CRITICAL);
    }

    /**
     * const char *ibv_get_device_name(struct ibv_device *device): pure user-space read.
     *
     * @param device the C argument {@code struct ibv_device *device}
     * @return what {@code ibv_get_device_name} returns ({@code const char *}); see man ibv_get_device_name(3)
     */
    public static MemorySegment ibv_get_device_name(final MemorySegment device)
    {
        try
        {
            return (MemorySegment) ibv_get_device_name$.HANDLE.invokeExact(device);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_get_device_name", ex);
        }
    }

    private static final class ibv_get_device_guid$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(U64, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_get_device_guid"), DESC, NONE);
    }

    /**
     * __be64 ibv_get_device_guid(struct ibv_device *device): node GUID in network order (reads sysfs).
     *
     * @param device the C argument {@code struct ibv_device *device}
     * @return what {@code ibv_get_device_guid} returns ({@code __be64}); see man ibv_get_device_guid(3)
     */
    public static long ibv_get_device_guid(final MemorySegment device)
    {
        try
        {
            return (long) ibv_get_device_guid$.HANDLE.invokeExact(device);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_get_device_guid", ex);
        }
    }

    private static final class ibv_open_device$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_open_device"), DESC, CAPTURE);
    }

    /**
     * struct ibv_context *ibv_open_device(struct ibv_device *device): NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param device the C argument {@code struct ibv_device *device}
     * @return what {@code ibv_open_device} returns ({@code struct ibv_context *}); see man ibv_open_device(3)
     */
    public static MemorySegment ibv_open_device(final MemorySegment callState, final MemorySegment device)
    {
        try
        {
            return (MemorySegment) ibv_open_device$.HANDLE.invokeExact(callState, device);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_open_device", ex);
        }
    }

    private static final class ibv_close_device$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_close_device"), DESC, NONE);
    }

    /**
     * int ibv_close_device(struct ibv_context *context).
     *
     * @param context the C argument {@code struct ibv_context *context}
     * @return what {@code ibv_close_device} returns ({@code int}); see man ibv_close_device(3)
     */
    public static int ibv_close_device(final MemorySegment context)
    {
        try
        {
            return (int) ibv_close_device$.HANDLE.invokeExact(context);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_close_device", ex);
        }
    }

    private static final class ibv_query_device$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_query_device"), DESC, NONE);
    }

    /**
     * int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr): 0 or errno.
     *
     * @param context the C argument {@code struct ibv_context *context}
     * @param device_attr the C argument {@code struct ibv_device_attr *device_attr}
     * @return what {@code ibv_query_device} returns ({@code int}); see man ibv_query_device(3)
     */
    public static int ibv_query_device(final MemorySegment context, final MemorySegment device_attr)
    {
        try
        {
            return (int) ibv_query_device$.HANDLE.invokeExact(context, device_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_query_device", ex);
        }
    }

    private static final class ibv_query_port$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, U8, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_query_port"), DESC, NONE);
    }

    /**
     * int ibv_query_port(struct ibv_context *, uint8_t port_num, struct _compat_ibv_port_attr *): the exported symbol
     * behind the verbs.h macro; fills only the compat prefix of ibv_port_attr. Prefer InlineVerbs.ibv_query_port, which
     * does what the macro does.
     *
     * @param context the C argument {@code struct ibv_context *context}
     * @param port_num the C argument {@code uint8_t port_num}
     * @param port_attr the C argument {@code struct _compat_ibv_port_attr *port_attr}
     * @return what {@code ibv_query_port} returns ({@code int}); see man ibv_query_port(3)
     */
    public static int ibv_query_port(final MemorySegment context, final byte port_num, final MemorySegment port_attr)
    {
        try
        {
            return (int) ibv_query_port$.HANDLE.invokeExact(context, port_num, port_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_query_port", ex);
        }
    }

    private static final class ibv_query_gid$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, U8, C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_query_gid"), DESC, CAPTURE);
    }

    /**
     * int ibv_query_gid(struct ibv_context *, uint8_t port_num, int index, union ibv_gid *gid):
     * 0, or -1 (errno may say why). {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param port_num the C argument {@code uint8_t port_num}
     * @param index the C argument {@code int index}
     * @param gid the C argument {@code union ibv_gid *gid}
     * @return what {@code ibv_query_gid} returns ({@code int}); see man ibv_query_gid(3)
     */
    public static int ibv_query_gid(final MemorySegment callState, final MemorySegment context, final byte port_num,
        final int index, final MemorySegment gid)
    {
        try
        {
            return (int) ibv_query_gid$.HANDLE.invokeExact(callState, context, port_num, index, gid);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_query_gid", ex);
        }
    }

    private static final class ibv_alloc_pd$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_alloc_pd"), DESC, CAPTURE);
    }

    /**
     * struct ibv_pd *ibv_alloc_pd(struct ibv_context *context): NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @return what {@code ibv_alloc_pd} returns ({@code struct ibv_pd *}); see man ibv_alloc_pd(3)
     */
    public static MemorySegment ibv_alloc_pd(final MemorySegment callState, final MemorySegment context)
    {
        try
        {
            return (MemorySegment) ibv_alloc_pd$.HANDLE.invokeExact(callState, context);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_alloc_pd", ex);
        }
    }

    private static final class ibv_dealloc_pd$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_dealloc_pd"), DESC, NONE);
    }

    /**
     * int ibv_dealloc_pd(struct ibv_pd *pd): 0 or errno (EBUSY while objects still use it).
     *
     * @param pd the C argument {@code struct ibv_pd *pd}
     * @return what {@code ibv_dealloc_pd} returns ({@code int}); see man ibv_dealloc_pd(3)
     */
    public static int ibv_dealloc_pd(final MemorySegment pd)
    {
        try
        {
            return (int) ibv_dealloc_pd$.HANDLE.invokeExact(pd);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_dealloc_pd", ex);
        }
    }

    private static final class ibv_reg_mr$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER, U64, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_reg_mr"), DESC, CAPTURE);
    }

    /**
     * struct ibv_mr *ibv_reg_mr(struct ibv_pd *, void *addr, size_t length, int access): the exported symbol that the
     * verbs.h macro calls for constant access flags without IBV_ACCESS_OPTIONAL_RANGE; iova = addr.
     * NULL + errno on failure. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param pd the C argument {@code struct ibv_pd *pd}
     * @param addr the C argument {@code void *addr}
     * @param length the C argument {@code size_t length}
     * @param access the C argument {@code int access}
     * @return what {@code ibv_reg_mr} returns ({@code struct ibv_mr *}); see man ibv_reg_mr(3)
     */
    public static MemorySegment ibv_reg_mr(final MemorySegment callState, final MemorySegment pd,
        final MemorySegment addr, final long length, final int access)
    {
        try
        {
            return (MemorySegment) ibv_reg_mr$.HANDLE.invokeExact(callState, pd, addr, length, access);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_reg_mr", ex);
        }
    }

    private static final class ibv_reg_mr_iova2$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER, U64, U64, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_reg_mr_iova2"), DESC, CAPTURE);
    }

    /**
     * struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *, void *addr, size_t length, uint64_t iova, unsigned int access):
     * what the verbs.h ibv_reg_mr macro calls otherwise. NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param pd the C argument {@code struct ibv_pd *pd}
     * @param addr the C argument {@code void *addr}
     * @param length the C argument {@code size_t length}
     * @param iova the C argument {@code uint64_t iova}
     * @param access the C argument {@code unsigned int access}
     * @return what {@code ibv_reg_mr_iova2} returns ({@code struct ibv_mr *})
     */
    public static MemorySegment ibv_reg_mr_iova2(final MemorySegment callState, final MemorySegment pd,
        final MemorySegment addr, final long length, final long iova, final int access)
    {
        try
        {
            return (MemorySegment) ibv_reg_mr_iova2$.HANDLE.invokeExact(callState, pd, addr, length, iova, access);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_reg_mr_iova2", ex);
        }
    }

    private static final class ibv_dereg_mr$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_dereg_mr"), DESC, NONE);
    }

    /**
     * int ibv_dereg_mr(struct ibv_mr *mr): 0 or errno.
     *
     * @param mr the C argument {@code struct ibv_mr *mr}
     * @return what {@code ibv_dereg_mr} returns ({@code int}); see man ibv_dereg_mr(3)
     */
    public static int ibv_dereg_mr(final MemorySegment mr)
    {
        try
        {
            return (int) ibv_dereg_mr$.HANDLE.invokeExact(mr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_dereg_mr", ex);
        }
    }

    private static final class ibv_create_comp_channel$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.ibverbs("ibv_create_comp_channel"), DESC, CAPTURE);
    }

    /**
     * struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context): NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @return what {@code ibv_create_comp_channel} returns ({@code struct ibv_comp_channel *}); see man
     *         ibv_create_comp_channel(3)
     */
    public static MemorySegment ibv_create_comp_channel(final MemorySegment callState, final MemorySegment context)
    {
        try
        {
            return (MemorySegment) ibv_create_comp_channel$.HANDLE.invokeExact(callState, context);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_create_comp_channel", ex);
        }
    }

    private static final class ibv_destroy_comp_channel$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.ibverbs("ibv_destroy_comp_channel"), DESC, NONE);
    }

    /**
     * int ibv_destroy_comp_channel(struct ibv_comp_channel *channel): 0 or errno (EBUSY while a CQ uses it).
     *
     * @param channel the C argument {@code struct ibv_comp_channel *channel}
     * @return what {@code ibv_destroy_comp_channel} returns ({@code int}); see man ibv_destroy_comp_channel(3)
     */
    public static int ibv_destroy_comp_channel(final MemorySegment channel)
    {
        try
        {
            return (int) ibv_destroy_comp_channel$.HANDLE.invokeExact(channel);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_destroy_comp_channel", ex);
        }
    }

    private static final class ibv_create_cq$
    {
        static final FunctionDescriptor DESC =
            FunctionDescriptor.of(C_POINTER, C_POINTER, C_INT, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_create_cq"), DESC, CAPTURE);
    }

    /**
     * struct ibv_cq *ibv_create_cq(struct ibv_context *, int cqe, void *cq_context, struct ibv_comp_channel *,
     * int comp_vector): NULL + errno on failure. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param cqe the C argument {@code int cqe}
     * @param cq_context the C argument {@code void *cq_context}
     * @param channel the C argument {@code struct ibv_comp_channel *channel}
     * @param comp_vector the C argument {@code int comp_vector}
     * @return what {@code ibv_create_cq} returns ({@code struct ibv_cq *}); see man ibv_create_cq(3)
     */
    public static MemorySegment ibv_create_cq(final MemorySegment callState, final MemorySegment context, final int cqe,
        final MemorySegment cq_context, final MemorySegment channel, final int comp_vector)
    {
        try
        {
            return (MemorySegment) ibv_create_cq$.HANDLE.invokeExact(callState, context, cqe, cq_context, channel,
                comp_vector);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_create_cq", ex);
        }
    }

    private static final class ibv_destroy_cq$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_destroy_cq"), DESC, NONE);
    }

    /**
     * int ibv_destroy_cq(struct ibv_cq *cq): 0 or errno.
     *
     * @param cq the C argument {@code struct ibv_cq *cq}
     * @return what {@code ibv_destroy_cq} returns ({@code int}); see man ibv_destroy_cq(3)
     */
    public static int ibv_destroy_cq(final MemorySegment cq)
    {
        try
        {
            return (int) ibv_destroy_cq$.HANDLE.invokeExact(cq);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_destroy_cq", ex);
        }
    }

    private static final class ibv_get_cq_event$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_get_cq_event"), DESC, CAPTURE);
    }

    /**
     * int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **cq, void **cq_context): blocks on the channel fd
     * unless it is non-blocking; 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param channel the C argument {@code struct ibv_comp_channel *channel}
     * @param cq the C argument {@code struct ibv_cq **cq}
     * @param cq_context the C argument {@code void **cq_context}
     * @return what {@code ibv_get_cq_event} returns ({@code int}); see man ibv_get_cq_event(3)
     */
    public static int ibv_get_cq_event(final MemorySegment callState, final MemorySegment channel,
        final MemorySegment cq, final MemorySegment cq_context)
    {
        try
        {
            return (int) ibv_get_cq_event$.HANDLE.invokeExact(callState, channel, cq, cq_context);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_get_cq_event", ex);
        }
    }

    private static final class ibv_ack_cq_events$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_ack_cq_events"), DESC, NONE);
    }

    /**
     * void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents): must balance ibv_get_cq_event before
     * ibv_destroy_cq.
     *
     * @param cq the C argument {@code struct ibv_cq *cq}
     * @param nevents the C argument {@code unsigned int nevents}
     */
    public static void ibv_ack_cq_events(final MemorySegment cq, final int nevents)
    {
        try
        {
            ibv_ack_cq_events$.HANDLE.invokeExact(cq, nevents);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_ack_cq_events", ex);
        }
    }

    private static final class ibv_create_qp$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_create_qp"), DESC, CAPTURE);
    }

    /**
     * struct ibv_qp *ibv_create_qp(struct ibv_pd *, struct ibv_qp_init_attr *): granted caps are written back into the
     * attr. NULL + errno on failure. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param pd the C argument {@code struct ibv_pd *pd}
     * @param qp_init_attr the C argument {@code struct ibv_qp_init_attr *qp_init_attr}
     * @return what {@code ibv_create_qp} returns ({@code struct ibv_qp *}); see man ibv_create_qp(3)
     */
    public static MemorySegment ibv_create_qp(final MemorySegment callState, final MemorySegment pd,
        final MemorySegment qp_init_attr)
    {
        try
        {
            return (MemorySegment) ibv_create_qp$.HANDLE.invokeExact(callState, pd, qp_init_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_create_qp", ex);
        }
    }

    private static final class ibv_modify_qp$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_modify_qp"), DESC, NONE);
    }

    /**
     * int ibv_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask): 0 or errno.
     *
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @param attr the C argument {@code struct ibv_qp_attr *attr}
     * @param attr_mask the C argument {@code int attr_mask}
     * @return what {@code ibv_modify_qp} returns ({@code int}); see man ibv_modify_qp(3)
     */
    public static int ibv_modify_qp(final MemorySegment qp, final MemorySegment attr, final int attr_mask)
    {
        try
        {
            return (int) ibv_modify_qp$.HANDLE.invokeExact(qp, attr, attr_mask);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_modify_qp", ex);
        }
    }

    private static final class ibv_query_qp$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_query_qp"), DESC, NONE);
    }

    /**
     * int ibv_query_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask, struct ibv_qp_init_attr *): 0 or errno.
     *
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @param attr the C argument {@code struct ibv_qp_attr *attr}
     * @param attr_mask the C argument {@code int attr_mask}
     * @param init_attr the C argument {@code struct ibv_qp_init_attr *init_attr}
     * @return what {@code ibv_query_qp} returns ({@code int}); see man ibv_query_qp(3)
     */
    public static int ibv_query_qp(final MemorySegment qp, final MemorySegment attr, final int attr_mask,
        final MemorySegment init_attr)
    {
        try
        {
            return (int) ibv_query_qp$.HANDLE.invokeExact(qp, attr, attr_mask, init_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_query_qp", ex);
        }
    }

    private static final class ibv_destroy_qp$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_destroy_qp"), DESC, NONE);
    }

    /**
     * int ibv_destroy_qp(struct ibv_qp *qp): 0 or errno.
     *
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @return what {@code ibv_destroy_qp} returns ({@code int}); see man ibv_destroy_qp(3)
     */
    public static int ibv_destroy_qp(final MemorySegment qp)
    {
        try
        {
            return (int) ibv_destroy_qp$.HANDLE.invokeExact(qp);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_destroy_qp", ex);
        }
    }

    private static final class ibv_qp_to_qp_ex$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.ibverbs("ibv_qp_to_qp_ex"), DESC, CAPTURE_CRITICAL);
    }

    /**
     * struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp): pure user-space; NULL unless the QP was created with
     * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @return what {@code ibv_qp_to_qp_ex} returns ({@code struct ibv_qp_ex *})
     */
    public static MemorySegment ibv_qp_to_qp_ex(final MemorySegment callState, final MemorySegment qp)
    {
        try
        {
            return (MemorySegment) ibv_qp_to_qp_ex$.HANDLE.invokeExact(callState, qp);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_qp_to_qp_ex", ex);
        }
    }

    private static final class ibv_create_srq$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_create_srq"), DESC, CAPTURE);
    }

    /**
     * struct ibv_srq *ibv_create_srq(struct ibv_pd *, struct ibv_srq_init_attr *): NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param pd the C argument {@code struct ibv_pd *pd}
     * @param srq_init_attr the C argument {@code struct ibv_srq_init_attr *srq_init_attr}
     * @return what {@code ibv_create_srq} returns ({@code struct ibv_srq *}); see man ibv_create_srq(3)
     */
    public static MemorySegment ibv_create_srq(final MemorySegment callState, final MemorySegment pd,
        final MemorySegment srq_init_attr)
    {
        try
        {
            return (MemorySegment) ibv_create_srq$.HANDLE.invokeExact(callState, pd, srq_init_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_create_srq", ex);
        }
    }

    private static final class ibv_destroy_srq$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_destroy_srq"), DESC, NONE);
    }

    /**
     * int ibv_destroy_srq(struct ibv_srq *srq): 0 or errno.
     *
     * @param srq the C argument {@code struct ibv_srq *srq}
     * @return what {@code ibv_destroy_srq} returns ({@code int}); see man ibv_destroy_srq(3)
     */
    public static int ibv_destroy_srq(final MemorySegment srq)
    {
        try
        {
            return (int) ibv_destroy_srq$.HANDLE.invokeExact(srq);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_destroy_srq", ex);
        }
    }

    private static final class ibv_modify_srq$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_modify_srq"), DESC, NONE);
    }

    /**
     * int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask): 0 or errno. With
     * {@code IBV_SRQ_LIMIT} it arms the SRQ limit event.
     *
     * @param srq the C argument {@code struct ibv_srq *srq}
     * @param srq_attr the C argument {@code struct ibv_srq_attr *srq_attr}
     * @param srq_attr_mask the C argument {@code int srq_attr_mask}
     * @return what {@code ibv_modify_srq} returns ({@code int}); see man ibv_modify_srq(3)
     */
    public static int ibv_modify_srq(final MemorySegment srq, final MemorySegment srq_attr, final int srq_attr_mask)
    {
        try
        {
            return (int) ibv_modify_srq$.HANDLE.invokeExact(srq, srq_attr, srq_attr_mask);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_modify_srq", ex);
        }
    }

    private static final class ibv_query_srq$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_query_srq"), DESC, NONE);
    }

    /**
     * int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr): 0 or errno.
     *
     * @param srq the C argument {@code struct ibv_srq *srq}
     * @param srq_attr the C argument {@code struct ibv_srq_attr *srq_attr}
     * @return what {@code ibv_query_srq} returns ({@code int}); see man ibv_query_srq(3)
     */
    public static int ibv_query_srq(final MemorySegment srq, final MemorySegment srq_attr)
    {
        try
        {
            return (int) ibv_query_srq$.HANDLE.invokeExact(srq, srq_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_query_srq", ex);
        }
    }

    private static final class ibv_get_async_event$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_get_async_event"), DESC,
            CAPTURE);
    }

    /**
     * int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event): reads one event from the
     * context's async fd (blocking unless the fd is non-blocking); 0, or -1 + errno. Every event it returns must be
     * acknowledged with {@link #ibv_ack_async_event} before the object it names can be destroyed.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param event the C argument {@code struct ibv_async_event *event}
     * @return what {@code ibv_get_async_event} returns ({@code int}); see man ibv_get_async_event(3)
     */
    public static int ibv_get_async_event(final MemorySegment callState, final MemorySegment context,
        final MemorySegment event)
    {
        try
        {
            return (int) ibv_get_async_event$.HANDLE.invokeExact(callState, context, event);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_get_async_event", ex);
        }
    }

    private static final class ibv_ack_async_event$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_ack_async_event"), DESC, NONE);
    }

    /**
     * void ibv_ack_async_event(struct ibv_async_event *event): counts the event as handled on the QP, CQ, SRQ or WQ it
     * names; ibv_destroy_qp/cq/srq/wq wait until every event ibv_get_async_event returned for it was acknowledged.
     *
     * @param event the C argument {@code struct ibv_async_event *event}
     */
    public static void ibv_ack_async_event(final MemorySegment event)
    {
        try
        {
            ibv_ack_async_event$.HANDLE.invokeExact(event);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_ack_async_event", ex);
        }
    }

    private static final class ibv_create_ah$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_create_ah"), DESC, CAPTURE);
    }

    /**
     * struct ibv_ah *ibv_create_ah(struct ibv_pd *, struct ibv_ah_attr *): NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param pd the C argument {@code struct ibv_pd *pd}
     * @param attr the C argument {@code struct ibv_ah_attr *attr}
     * @return what {@code ibv_create_ah} returns ({@code struct ibv_ah *}); see man ibv_create_ah(3)
     */
    public static MemorySegment ibv_create_ah(final MemorySegment callState, final MemorySegment pd,
        final MemorySegment attr)
    {
        try
        {
            return (MemorySegment) ibv_create_ah$.HANDLE.invokeExact(callState, pd, attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_create_ah", ex);
        }
    }

    private static final class ibv_attach_mcast$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, U16);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_attach_mcast"), DESC, NONE);
    }

    /**
     * int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid): a UD QP receives the
     * group's datagrams; 0 or errno.
     *
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @param gid the C argument {@code const union ibv_gid *gid}
     * @param lid the C argument {@code uint16_t lid}
     * @return what {@code ibv_attach_mcast} returns ({@code int}); see man ibv_attach_mcast(3)
     */
    public static int ibv_attach_mcast(final MemorySegment qp, final MemorySegment gid, final short lid)
    {
        try
        {
            return (int) ibv_attach_mcast$.HANDLE.invokeExact(qp, gid, lid);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_attach_mcast", ex);
        }
    }

    private static final class ibv_detach_mcast$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, U16);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_detach_mcast"), DESC, NONE);
    }

    /**
     * int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid): 0 or errno.
     *
     * @param qp the C argument {@code struct ibv_qp *qp}
     * @param gid the C argument {@code const union ibv_gid *gid}
     * @param lid the C argument {@code uint16_t lid}
     * @return what {@code ibv_detach_mcast} returns ({@code int}); see man ibv_detach_mcast(3)
     */
    public static int ibv_detach_mcast(final MemorySegment qp, final MemorySegment gid, final short lid)
    {
        try
        {
            return (int) ibv_detach_mcast$.HANDLE.invokeExact(qp, gid, lid);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_detach_mcast", ex);
        }
    }

    private static final class ibv_destroy_ah$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_destroy_ah"), DESC, NONE);
    }

    /**
     * int ibv_destroy_ah(struct ibv_ah *ah): 0 or errno.
     *
     * @param ah the C argument {@code struct ibv_ah *ah}
     * @return what {@code ibv_destroy_ah} returns ({@code int}); see man ibv_destroy_ah(3)
     */
    public static int ibv_destroy_ah(final MemorySegment ah)
    {
        try
        {
            return (int) ibv_destroy_ah$.HANDLE.invokeExact(ah);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_destroy_ah", ex);
        }
    }

    private static final class ibv_wc_status_str$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.ibverbs("ibv_wc_status_str"), DESC, CRITICAL);
    }

    /**
     * const char *ibv_wc_status_str(enum ibv_wc_status status): static string, pure user-space.
     *
     * @param status the C argument {@code enum ibv_wc_status status}
     * @return what {@code ibv_wc_status_str} returns ({@code const char *})
     */
    public static MemorySegment ibv_wc_status_str(final int status)
    {
        try
        {
            return (MemorySegment) ibv_wc_status_str$.HANDLE.invokeExact(status);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: ibv_wc_status_str", ex);
        }
    }
}
